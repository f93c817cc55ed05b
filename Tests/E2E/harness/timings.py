"""In-page durations of create()/get() (performance.now() around the call), for the performance issue.

Recorded by every ceremony of a browser whose SoftToken answers at once, and by the baseline session
(Chromium's own WebAuthn with its virtual authenticator, "chromium-own"), and printed at the end of the run
with the bridge's medians as multiples of the baseline's. The first call of each browser is reported apart
("cold": port, host and token start-up). Nothing asserts on them: on the 2-core CI VM the noise is several
times the signal (docs/performance.md).
"""
import statistics

_samples: list[tuple[str, str, float, bool]] = []   # (browser, register|signIn, ms, cold)
BASELINE = {"chromium": "chromium-own", "chromium-proxy": "chromium-own"}


def record(browser: str, action: str, elapsed_ms: float, cold: bool) -> None:
    _samples.append((browser, action, float(elapsed_ms), cold))


def warm(browser: str, action: str) -> list[float]:
    return sorted(s[2] for s in _samples if s[:2] == (browser, action) and not s[3])


def summary() -> list[str]:
    lines = []
    for browser in sorted({s[0] for s in _samples}):
        for action in ("register", "signIn"):
            times = warm(browser, action)
            if len(times) >= 2:
                deciles = statistics.quantiles(times, n=10)
                lines.append(f"{browser:12} {action:9} n={len(times):3}  median {statistics.median(times):7.1f} ms"
                             f"  p10 {deciles[0]:7.1f}  p90 {deciles[-1]:7.1f}  max {times[-1]:7.1f}")
        cold = [f"{s[2]:.1f}" for s in _samples if s[0] == browser and s[3]]
        if cold:
            lines.append(f"{browser:12} cold first calls (ms): {', '.join(cold)}")
    lines += ratios()
    return lines


def ratios() -> list[str]:
    lines = []
    for browser, baseline in BASELINE.items():
        for action in ("register", "signIn"):
            ours, theirs = warm(browser, action), warm(baseline, action)
            if len(ours) >= 2 and len(theirs) >= 2:
                ratio = statistics.median(ours) / statistics.median(theirs)
                lines.append(f"{browser} {action}: bridge median is {ratio:.2f}× {baseline}'s")
    return lines
