#!/usr/bin/env python3
"""Regenerates scripts/link-order.txt: the functions a browser-launched host runs, for lld's --symbol-ordering-file.

Why: the kernel maps a binary's code in 64 KiB runs around each page it touches, so a host whose few hundred KiB
of start-up and ceremony code lie scattered over the 10 MB of static Swift runtime and Foundation code is charged
several MB of resident memory for it. Linking those functions next to each other (Package.swift does so for
release builds on Linux) keeps them in a few runs. A stale list does no harm: names it no longer matches are
skipped, and the layout falls back to the linker's own order for them.

How: builds the release host as install.sh does, runs it under valgrind's callgrind for info and a few create/get
ceremonies against a SoftToken (as the benchmark does), and lists every function of the executable that ran.
Needs valgrind (Debian: apt install valgrind). Run it after a toolchain update or a large change to the host.
"""
import base64
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT = os.path.join(REPO, "scripts", "link-order.txt")
CHROMIUM_ID = open(os.path.join(REPO, "extension", "chromium-id.txt")).read().strip()
CEREMONIES = 5


def build() -> str:
    subprocess.run(["swift", "build", "-c", "release", "--static-swift-stdlib", "--product", "webauthn-bridge"],
                   cwd=REPO, check=True)
    path = subprocess.run(["swift", "build", "-c", "release", "--static-swift-stdlib", "--show-bin-path"],
                          cwd=REPO, check=True, capture_output=True, text=True).stdout.strip()
    return os.path.realpath(os.path.join(path, "webauthn-bridge"))


def binary(data: bytes) -> dict:
    return {"__binary__": base64.urlsafe_b64encode(data).rstrip(b"=").decode()}


def run_session(host: str, scratch: str, profile: str) -> None:
    """The host as Chromium starts it, under callgrind: info, then create and get ceremonies."""
    token = os.path.join(scratch, "profile.state")
    subprocess.run([host, "token", "create", token], check=True, capture_output=True)
    environment = {"WEBAUTHN_BRIDGE_SOFT_TOKEN": token, "WEBAUTHN_BRIDGE_LOG_FILE": os.path.join(scratch, "host.log"),
                   "HOME": scratch, "PATH": "/usr/bin:/bin"}
    process = subprocess.Popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={profile}", host,
                                f"chrome-extension://{CHROMIUM_ID}/"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=environment)

    def request(message: dict) -> dict:
        payload = json.dumps(message).encode()
        process.stdin.write(struct.pack("=I", len(payload)) + payload)
        process.stdin.flush()
        while True:
            length = struct.unpack("=I", process.stdout.read(4))[0]
            reply = json.loads(process.stdout.read(length))
            if reply.get("type") != "status":
                return reply

    origin = "https://profile.example"
    assert request({"id": "i", "type": "info"})["type"] == "result"
    for i in range(CEREMONIES):
        created = request({"id": f"c{i}", "type": "create", "origin": origin, "options": {
            "rp": {"name": "Profile"}, "user": {"id": binary(b"user"), "name": "u", "displayName": "U"},
            "challenge": binary(os.urandom(32)), "pubKeyCredParams": [{"type": "public-key", "alg": -7}]}})
        assert created["type"] == "result", created
        got = request({"id": f"g{i}", "type": "get", "origin": origin, "options": {
            "challenge": binary(os.urandom(32)),
            "allowCredentials": [{"type": "public-key", "id": created["credential"]["rawId"]}]}})
        assert got["type"] == "result", got
    process.stdin.close()
    process.wait()


def executed_functions(profile: str, host: str) -> set:
    """Names of the functions callgrind saw run in the executable (C++ ones demangled, Swift ones not)."""
    lines = open(profile).read().splitlines()
    objects, functions = {}, {}
    for line in lines:
        if m := re.match(r"^c?ob=\((\d+)\) (.*)$", line):
            objects[m[1]] = m[2]
        if m := re.match(r"^c?fn=\((\d+)\) (.*)$", line):
            functions[m[1]] = m[2]
    current, executed = None, set()
    for line in lines:
        if m := re.match(r"^ob=\((\d+)\)", line):
            current = objects[m[1]]
        elif (m := re.match(r"^fn=\((\d+)\)", line)) and current == host:
            executed.add(re.sub(r"'\d+$", "", functions[m[1]]))  # callgrind's suffix for recursion levels
    return executed


def symbol_names(host: str) -> dict:
    """Demangled or raw name → the symbol name the linker knows, for the executable's functions."""
    raw = subprocess.run(["nm", "--defined-only", host], check=True, capture_output=True, text=True).stdout.splitlines()
    demangled = subprocess.run(["nm", "-C", "--defined-only", host], check=True, capture_output=True, text=True).stdout.splitlines()
    names = {}
    for plain, readable in zip(raw, demangled):
        a, b = plain.split(maxsplit=2), readable.split(maxsplit=2)
        if len(a) == 3 and len(b) == 3 and a[1] in "tTwW":
            names.setdefault(a[2], a[2])
            names.setdefault(b[2], a[2])
    return names


def main() -> int:
    host = build()
    with tempfile.TemporaryDirectory() as scratch:
        profile = os.path.join(scratch, "callgrind.out")
        run_session(host, scratch, profile)
        executed = executed_functions(profile, host)
    names = symbol_names(host)
    order = sorted({names[n] for n in executed if n in names})
    if len(order) < 500:
        print(f"only {len(order)} functions found: is the profile from this binary?", file=sys.stderr)
        return 1
    with open(OUTPUT, "w") as out:
        out.write("\n".join(order) + "\n")
    # SwiftPM does not track the ordering file: without this the next build would keep the old layout.
    os.remove(host)
    print(f"{OUTPUT}: {len(order)} functions; the next release build links with it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
