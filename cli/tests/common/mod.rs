//! What the CLI's test binaries share: the `oxmcp` binary, and a long-running command
//! that serves HTTP.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

pub const OXMCP: &str = env!("CARGO_BIN_EXE_oxmcp");

/// A long-running oxmcp command that prints "... listening on URL" to stderr.
pub struct Listening {
    pub child: Child,
    pub url: String,
}

impl Listening {
    pub fn start(args: &[&str]) -> Listening {
        let mut child = Command::new(OXMCP).args(args).stderr(Stdio::piped()).stdout(Stdio::null()).spawn().unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let url = loop {
            let line = lines.next().expect("the command printed its URL").unwrap();
            if let Some((_, url)) = line.split_once("listening on ") {
                break url.trim().to_string();
            }
        };
        // Keep draining stderr so the child never blocks on it.
        std::thread::spawn(move || for _ in lines {});
        Listening { child, url }
    }

    #[allow(dead_code)] // not every test binary asks
    pub fn children(&self) -> Vec<u32> {
        let path = format!("/proc/{0}/task/{0}/children", self.child.id());
        let mut all: Vec<u32> = Vec::new();
        for task in std::fs::read_dir(format!("/proc/{}/task", self.child.id())).unwrap().flatten() {
            let text = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
            all.extend(text.split_whitespace().filter_map(|p| p.parse::<u32>().ok()));
        }
        let _ = path;
        all
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        // SAFETY: stopping the process this test started.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let _ = self.child.wait();
    }
}
