//! ISO 8601 timestamps for tasks (`createdAt`, `lastUpdatedAt`), in UTC.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, as `2026-11-24T10:30:00.123Z`.
pub(crate) fn now() -> String {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    format_utc(since.as_secs(), since.subsec_millis())
}

/// `secs` after the Unix epoch as an ISO 8601 UTC timestamp with milliseconds.
fn format_utc(secs: u64, millis: u32) -> String {
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z", rest / 3600, rest % 3600 / 60, rest % 60)
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's algorithm:
/// eras of 400 years, March-based years so the leap day comes last).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_come_out_as_the_calendar_has_them() {
        assert_eq!(format_utc(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_utc(951_782_400, 5), "2000-02-29T00:00:00.005Z"); // a leap day of a century leap year
        assert_eq!(format_utc(1_795_521_600 + 3_723, 999), "2026-11-24T13:02:03.999Z");
        assert_eq!(format_utc(4_107_542_399, 0), "2100-02-28T23:59:59.000Z"); // 2100 is no leap year
        assert!(now().ends_with('Z') && now().len() == 24);
    }
}
