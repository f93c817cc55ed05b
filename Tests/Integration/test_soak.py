"""`webauthn-bridge bench --soak`, small: a host session serving hundreds of ceremonies and many host launches
holds its descriptors and threads steady, and its memory grows only by what the token keeps.

The full-size soak (10,000 pairs, 1,000 launches) and its figures are in docs/performance.md. The bench samples a
session's host between requests (after the ceremony's outcome line is logged); nothing here depends on timing.
"""

import json
import subprocess

from bridge import host_binary

PAIRS, LAUNCHES = 200, 20


def run_soak() -> dict:
    result = subprocess.run([host_binary(), "bench", "--soak", "--pairs", str(PAIRS), "--launches", str(LAUNCHES),
                             "--json"], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["soak"]


# libdispatch's pool, where the host's timers run, starts and retires threads on its own schedule: a handful at
# most. A thread kept per ceremony would make hundreds.
POOL_BOUND = 8


def test_soak_holds_descriptors_threads_and_memory_steady():
    soak = run_soak()
    for run in ("pairsOneCredential", "pairsNewCredentials"):
        samples = list(soak[run]["samples"].values())
        assert len(samples) == 12, soak[run]  # start, after the first pair, every 20 pairs
        start, first = samples[0], samples[1]
        # The first ceremony opens libdispatch's event descriptors (epoll, eventfd, timerfd), once; after that the
        # count never moves.
        assert first["fds"] == start["fds"] + 3, samples
        assert {s["fds"] for s in samples[1:]} == {first["fds"]}, samples
        assert max(s["threads"] for s in samples) <= start["threads"] + POOL_BOUND, samples
        assert max(s["dispatchWorkers"] for s in samples) <= POOL_BOUND, samples
    # One credential, replaced each time: the token's files stay one credential long, and the host's own memory
    # settles. The bound allows for malloc giving a new pool thread an arena (~150 KiB, once); keeping a request's
    # frames or its answer (a few KiB) each pair would pass it.
    one = list(soak["pairsOneCredential"]["samples"].values())
    assert max(s["tokenFilesBytes"] for s in one[1:]) <= 2 * one[1]["tokenFilesBytes"], one
    assert one[-1]["anonymousKiB"] - one[2]["anonymousKiB"] <= 512, one
    # A new credential each time: the token's files grow with every credential, which the run must show.
    new = list(soak["pairsNewCredentials"]["samples"].values())
    assert new[-1]["tokenFilesBytes"] > new[1]["tokenFilesBytes"] + PAIRS * 200, new

    launches = soak["launches"]
    hosts = list(launches["hosts"].values())
    assert len(hosts) == 11, launches
    # Every launched host, once it has answered `info`, holds the same descriptors, threads and own memory.
    assert len({(h["fds"], h["threads"]) for h in hosts}) == 1, hosts
    assert max(h["anonymousKiB"] for h in hosts) - min(h["anonymousKiB"] for h in hosts) <= 256, hosts
    # The launcher (the same spawn code the host uses for pinentry) keeps no pipe and no child behind.
    assert launches["launcher"]["end"]["fds"] == launches["launcher"]["start"]["fds"], launches
    assert launches["launcher"]["end"]["threads"] == launches["launcher"]["start"]["threads"], launches
