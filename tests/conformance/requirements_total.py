"""Scores a `conformance-next server --requirements VERSION` log: the scenarios the
revision requires, leaving out those the suite lists as not scored (shown, not counted).
Prints each counted scenario on stderr and "PASSED FAILED" on stdout (a run that scored
nothing counts as one failure)."""
import re
import sys

text = open(sys.argv[1], encoding="utf-8").read()
head, _, tail = text.partition("Not scored for")
unscored = set(re.findall(r"^\s+[✓✗] (\S+) \(", tail, re.M))
passed = failed = 0
for name, p, f in re.findall(r"^[✓✗] (\S+): (\d+) passed, (\d+) failed", head, re.M):
    if name in unscored:
        continue
    passed += int(p)
    failed += int(f)
    print(("✓" if f == "0" else "✗") + f" {name}: {p} passed, {f} failed", file=sys.stderr)
print(f"not scored (shown by the suite, not counted): {', '.join(sorted(unscored)) or 'none'}", file=sys.stderr)
print(passed, failed if passed else 1)
