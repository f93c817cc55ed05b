"""The host as a user gets it: install.sh into a scratch HOME, and a SoftToken state file from the host's CLI."""
import importlib.util
import json
import shlex
import shutil
import subprocess
from pathlib import Path

from .paths import INSTALL_SH, REPO, extension_dir


def run_install_sh(*args: str, home: Path, check: bool = True) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}
    result = subprocess.run(["bash", str(INSTALL_SH), *args], env=env, capture_output=True, text=True,
                            timeout=120)
    if check and result.returncode != 0:
        raise RuntimeError(f"install.sh {' '.join(args)} failed ({result.returncode}):\n"
                           f"{result.stdout}\n{result.stderr}")
    return result


def install_host(host_binary: Path, kind: str, home: Path, prefix: Path, manifest_dir: Path) -> Path:
    """Installs host_binary with install.sh; returns the installed path, after checking the manifest points at it."""
    args = ["--host-binary", str(host_binary), "--prefix", str(prefix),
            "--manifest-dir", str(manifest_dir), "--browser-kind", kind]
    ext = extension_dir()
    if ext != (REPO / "extension").resolve():
        # Trying an extension from elsewhere: its id, not the one install.sh reads from extension/.
        args += ["--chromium-id", (ext / "chromium-id.txt").read_text().strip()]
    run_install_sh(*args, home=home)
    installed = prefix / "libexec/webauthn-bridge/webauthn-bridge"
    manifest = json.loads((manifest_dir / "webauthn_bridge.json").read_text())
    if manifest["path"] != str(installed) or not installed.is_file():
        raise RuntimeError(f"install.sh wrote a manifest for {manifest['path']}, expected {installed}")
    return installed


def wrap_host(host: Path, manifest: Path, env: dict) -> Path:
    """Points the installed manifest at a script that starts `host` with `env` added (the browser starts the script,
    with the browser's own environment); returns the script."""
    script = host.with_name("webauthn-bridge-wrapped")
    assignments = " ".join(f"{name}={shlex.quote(value)}" for name, value in env.items())
    script.write_text(f'#!/bin/sh\nexec env {assignments} {shlex.quote(str(host))} "$@"\n')
    script.chmod(0o755)
    fields = json.loads(manifest.read_text())
    fields["path"] = str(script)
    manifest.write_text(json.dumps(fields, indent=2))
    return script


def create_token(host: Path, state_file: Path, *args: str, env: dict) -> None:
    """`webauthn-bridge token create FILE [ARGS]`: a fresh SoftToken for one browser session."""
    result = subprocess.run([str(host), "token", "create", str(state_file), *args], env=env,
                            capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    if result.returncode != 0 or not state_file.exists():
        raise RuntimeError(f"{host} token create {state_file} {' '.join(args)} failed ({result.returncode}):\n"
                           f"{result.stdout}\n{result.stderr}")


def firefox_extension(scratch: Path) -> Path:
    """The extension as the .xpi carries it: a copy with the Firefox manifest packaging/extension_package.py writes
    (Firefox-only permissions such as webRequestBlocking, which the source manifest leaves out for Chromium)."""
    spec = importlib.util.spec_from_file_location("extension_package", REPO / "packaging/extension_package.py")
    package = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(package)
    copy = scratch / "extension-firefox"
    shutil.copytree(extension_dir(), copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    (copy / "manifest.json").write_text(json.dumps(package.store_manifest(manifest, "firefox"), indent=2))
    return copy
