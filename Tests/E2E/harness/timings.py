"""In-page durations of create()/get() (performance.now() around the call), for the performance issue.

Recorded by every ceremony of a browser whose SoftToken answers at once, and printed at the end of the run.
The first call of each browser is reported apart ("cold": port, host and token start-up). Nothing asserts
on them: on the 2-core CI VM the noise is several times the signal (notes/browsers.md §5).
"""
import statistics

_samples: list[tuple[str, str, float, bool]] = []   # (browser, register|signIn, ms, cold)


def record(browser: str, action: str, elapsed_ms: float, cold: bool) -> None:
    _samples.append((browser, action, float(elapsed_ms), cold))


def summary() -> list[str]:
    lines = []
    for browser in sorted({s[0] for s in _samples}):
        for action in ("register", "signIn"):
            warm = sorted(s[2] for s in _samples if s[:2] == (browser, action) and not s[3])
            if len(warm) >= 2:
                deciles = statistics.quantiles(warm, n=10)
                lines.append(f"{browser:9} {action:9} n={len(warm):3}  median {statistics.median(warm):7.1f} ms"
                             f"  p10 {deciles[0]:7.1f}  p90 {deciles[-1]:7.1f}  max {warm[-1]:7.1f}")
        cold = [f"{s[2]:.1f}" for s in _samples if s[0] == browser and s[3]]
        if cold:
            lines.append(f"{browser:9} cold first calls (ms): {', '.join(cold)}")
    return lines
