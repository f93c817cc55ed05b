"""`webauthn-bridge bench` runs and reports every figure it promises (the figures themselves are not asserted)."""

import json
import subprocess

from bridge import host_binary


def test_bench_reports_every_section():
    result = subprocess.run([host_binary(), "bench", "--launches", "2", "--ceremonies", "5", "--json"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["coldStart"]["n"] == 2
    for kind in ("create", "get"):
        figures = report["ceremonies"][kind]
        assert figures["roundTrip"]["n"] == 5
        assert 0 < figures["insideLibfido2AndSoftToken"]["p50"] <= figures["roundTrip"]["p50"]
        assert figures["hostOwnInside"]["p50"] >= 0
    assert report["peakRSSKiB"] > 1000
    resident = report["residentAfterCeremoniesKiB"]
    assert resident["anonymous"] > 0 and resident["fileBacked"] > 0
    assert resident["anonymous"] + resident["fileBacked"] <= report["peakRSSKiB"]
    assert {row["outcome"] for row in report["scaling"].values()} == {"ok"}
    for row in report["scaling"].values():
        assert 0 <= row["hostOwnMedianMs"] <= row["medianMs"]
    # The large blob came back byte for byte (the bench checks it), and reading it took time inside the key.
    blob = report["largeBlob"]
    assert blob["blobBytes"] == 700 * 1024
    assert 0 < blob["readInsideLibfido2AndSoftTokenMedianMs"] <= blob["readMedianMs"]
    assert report["codec"]["frames over a pipe"]["MBps"] > 0
    # One, two and three keys plugged in, the first touched: every ceremony answered (the bench checks it), and a
    # credential no key holds refused.
    assert list(report["severalKeys"]) == ["1 key", "2 keys", "3 keys"]
    for row in report["severalKeys"].values():
        assert row["create"]["n"] == 5 and row["get"]["n"] == 5 and row["get"]["p50"] > 0
        assert row["wrong key"]["n"] == 5 and row["wrong key"]["p50"] > 0
