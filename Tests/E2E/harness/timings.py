"""In-page durations of create()/get() (performance.now() around the call), for the performance issue.

Recorded by every ceremony and printed at the end of the run; nothing asserts on them (the 2-core CI VM's
noise is several times the signal, see notes/browsers.md §5).
"""
import statistics

_samples: list[tuple[str, str, float, bool]] = []


def record(browser: str, action: str, elapsed_ms: float, ok) -> None:
    _samples.append((browser, action, float(elapsed_ms), bool(ok)))


def summary() -> list[str]:
    lines = []
    for browser in sorted({s[0] for s in _samples}):
        for action in ("register", "signIn"):
            values = [s[2] for s in _samples if s[0] == browser and s[1] == action and s[3]]
            if values:
                lines.append(f"{browser:9} {action:9} n={len(values):3}  median {statistics.median(values):7.1f} ms"
                             f"  min {min(values):7.1f}  max {max(values):7.1f}")
    return lines
