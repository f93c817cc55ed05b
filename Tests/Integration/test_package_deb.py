"""scripts/package.sh deb, checked from the package itself (docs/release.md, "The Debian package"): control fields
and Depends, no maintainer scripts, the exact file list (staged by install.sh --system --root) and no directory
entry the package does not own (/etc/opt), host manifests pointing at the installed host for every supported
browser, Chromium's policy and Firefox's system extension, the man page, lintian clean but for the explained
overrides, a reproducible build, and a `dpkg --root` install whose host says VERSION, then remove or purge leaving
no file behind (the package has no conffile) and every directory that was there before (/etc/opt, as base-files
makes it). Then README's first commands from that install: `webauthn-bridge demo` and `doctor`, run as
/usr/bin/webauthn-bridge in a mount namespace where the installed root lies over the real /usr and /etc.

The package needs a release host built with --static-swift-stdlib (a debug build links the Swift runtime from the
toolchain, which no Debian package provides, so dpkg-shlibdeps cannot name a dependency for it). That build takes
about 2-4 minutes on the 2-core CI machine, so this file builds none: it runs when WEBAUTHN_BRIDGE_RELEASE_HOST names
one (packaging/release-build.sh prints its path) and skips otherwise. CI's release stage (scripts/test.sh) sets it,
and WEBAUTHN_BRIDGE_DIST to the directory its `scripts/package.sh all --host-binary HOST --out DIR` wrote: then the
checks read that run's .deb, and only the reproducibility check builds another."""
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import urllib.request
from pathlib import Path

import pytest

from bridge import REPO
from test_package import VERSION, extension_files

sys.path.append(str(REPO / "Tests" / "E2E"))   # after this directory: the demo's driver and the throwaway root of the E2E suite
from harness.paths import OVERRIDE_ACTIVE_JS  # noqa: E402
from harness.policy import isolation_problem, throwaway_root  # noqa: E402
from test_demo import Demo, Page  # noqa: E402

PRODUCT = "webauthn-bridge"
HOST = f"/usr/libexec/{PRODUCT}/{PRODUCT}"
SHARE = f"/usr/share/{PRODUCT}"
CHROMIUM_DIRS = ["etc/chromium/native-messaging-hosts", "etc/opt/chrome/native-messaging-hosts",
                 "etc/opt/edge/native-messaging-hosts"]
FIREFOX_DIRS = ["usr/lib/mozilla/native-messaging-hosts", "usr/lib/librewolf/native-messaging-hosts"]
SUBCOMMANDS = ["host", "token", "devices", "doctor", "log", "bench"]
FIREFOX_EXTENSION = "usr/share/mozilla/extensions/{ec8030f7-c20a-464f-9b0e-13a3a9e97384}/webauthn-bridge@webauthn-bridge.xpi"
NOT_OURS = ["etc/opt"]   # base-files' postinst makes it; no package owns it
CHROMIUM_POLICY = f"etc/chromium/policies/managed/{PRODUCT}.json"


RELEASE_HOST = os.environ.get("WEBAUTHN_BRIDGE_RELEASE_HOST")
pytestmark = pytest.mark.skipif(not RELEASE_HOST, reason=(
    "no release host: set WEBAUTHN_BRIDGE_RELEASE_HOST=$(packaging/release-build.sh) "
    "(a release build, about 2-4 minutes on 2 cores)"))


def release_host():
    """The host named, which must say VERSION: a host named but wrong fails the run rather than skipping it."""
    said = subprocess.run([RELEASE_HOST, "--version"], capture_output=True, text=True, timeout=30,
                          stdin=subprocess.DEVNULL)
    assert said.stdout.strip() == VERSION, f"{RELEASE_HOST} --version says {said.stdout!r}, VERSION is {VERSION}"
    return RELEASE_HOST


def build_deb(out, epoch):
    # One SOURCE_DATE_EPOCH for the builds compared: package.sh's default, the last commit's time, moves when
    # someone commits between two builds.
    result = subprocess.run([REPO / "scripts" / "package.sh", "deb", "--host-binary", release_host(), "--out", out],
                            capture_output=True, text=True, timeout=900, env={**os.environ, "SOURCE_DATE_EPOCH": epoch})
    assert result.returncode == 0, result.stdout + result.stderr
    return out / f"{PRODUCT}_{VERSION}_amd64.deb"


@pytest.fixture(scope="module")
def deb(tmp_path_factory):
    """(dist directory, .deb): WEBAUTHN_BRIDGE_DIST's (package.sh all of the CI stage), else one built here."""
    given = os.environ.get("WEBAUTHN_BRIDGE_DIST")
    if given:
        path = Path(given) / f"{PRODUCT}_{VERSION}_amd64.deb"
        assert path.is_file(), f"WEBAUTHN_BRIDGE_DIST={given} holds no {path.name}"
        return Path(given), path
    out = tmp_path_factory.mktemp("dist")
    return out, build_deb(out, str(int(time.time())))


def deb_members(path):
    """{path: TarInfo} and {path: bytes} of the data archive, paths without the leading './'."""
    data = subprocess.run(["dpkg-deb", "--fsys-tarfile", path], check=True, capture_output=True).stdout
    infos, contents = {}, {}
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for info in tar.getmembers():
            name = info.name.removeprefix("./").rstrip("/")
            if not name:
                continue
            infos[name] = info
            if info.isfile():
                contents[name] = tar.extractfile(info).read()
    return infos, contents


def control_fields(path) -> dict:
    text = subprocess.run(["dpkg-deb", "--field", path], check=True, capture_output=True, text=True).stdout
    fields, key = {}, None
    for line in text.splitlines():
        if line.startswith(" ") and key:
            fields[key] += "\n" + line
        else:
            key, _, value = line.partition(": ")
            fields[key] = value
    return fields


def test_control_depends_and_no_maintainer_scripts(deb, tmp_path):
    _, path = deb
    fields = control_fields(path)
    assert (fields["Package"], fields["Version"], fields["Architecture"]) == (PRODUCT, VERSION, "amd64")
    depends = [d.split(" ")[0] for d in fields["Depends"].split(", ")]
    for needed in ("libc6", "libfido2-1", "libpsl5", "libssl3", "publicsuffix"):
        assert needed in depends
    assert not [d for d in depends if "swift" in d]              # the Swift runtime is linked in
    subprocess.run(["dpkg-deb", "--control", path, tmp_path / "control"], check=True)
    assert sorted(p.name for p in (tmp_path / "control").iterdir()) == ["control", "md5sums"]


def test_file_list_is_exactly_the_layout(deb):
    out, path = deb
    infos, contents = deb_members(path)
    files = {n for n, i in infos.items() if not i.isdir()}
    expected = {HOST[1:], f"usr/bin/{PRODUCT}", f"usr/share/doc/{PRODUCT}/copyright",
                f"usr/share/doc/{PRODUCT}/changelog.gz", f"usr/share/man/man1/{PRODUCT}.1.gz",
                f"usr/share/lintian/overrides/{PRODUCT}", f"{SHARE[1:]}/webauthn-bridge.xpi",
                f"{SHARE[1:]}/webauthn-bridge.crx", f"{SHARE[1:]}/chromium-id.txt",
                f"{SHARE[1:]}/native-messaging-hosts/webauthn_bridge.json", f"{SHARE[1:]}/updates.xml",
                f"{SHARE[1:]}/policies/chromium-managed.json", CHROMIUM_POLICY, FIREFOX_EXTENSION}
    expected |= {f"{d}/webauthn_bridge.json" for d in CHROMIUM_DIRS + FIREFOX_DIRS}
    expected |= {f"{SHARE[1:]}/{copy}/{f}" for copy in ("extension", "extension-firefox") for f in extension_files()}
    assert files == expected
    assert infos[HOST[1:]].mode == 0o755 and infos[f"usr/bin/{PRODUCT}"].linkname == f"../libexec/{PRODUCT}/{PRODUCT}"
    assert all(i.uid == 0 and i.gid == 0 for i in infos.values())
    assert contents[f"{SHARE[1:]}/webauthn-bridge.xpi"] == (out / f"webauthn-bridge-{VERSION}.xpi").read_bytes()
    assert contents[FIREFOX_EXTENSION] == contents[f"{SHARE[1:]}/webauthn-bridge.xpi"]
    assert contents[f"{SHARE[1:]}/webauthn-bridge.crx"] == (out / f"webauthn-bridge-{VERSION}.crx").read_bytes()
    for f in extension_files():                                  # the unpacked extension as in the repository
        assert contents[f"{SHARE[1:]}/extension/{f}"] == (REPO / "extension" / f).read_bytes()
        if f != "manifest.json":                                 # Firefox's copy differs in its manifest only
            assert contents[f"{SHARE[1:]}/extension-firefox/{f}"] == (REPO / "extension" / f).read_bytes()
    firefox = json.loads(contents[f"{SHARE[1:]}/extension-firefox/manifest.json"])
    assert "webRequestBlocking" in firefox["permissions"] and "service_worker" not in firefox["background"]


def test_host_manifests_name_the_installed_host_for_every_browser(deb):
    out, path = deb
    infos, contents = deb_members(path)
    crx_id = (out / "chromium-id.txt").read_text().strip()
    repo_id = (REPO / "extension" / "chromium-id.txt").read_text().strip()
    for d in FIREFOX_DIRS:
        m = json.loads(contents[f"{d}/webauthn_bridge.json"])
        assert (m["name"], m["path"], m["type"]) == ("webauthn_bridge", HOST, "stdio")
        assert m["allowed_extensions"] == ["webauthn-bridge@webauthn-bridge"]
    chromium = f"{SHARE}/native-messaging-hosts/webauthn_bridge.json"
    for d in CHROMIUM_DIRS:                                      # symlinks: /etc holds no conffile to leave behind
        assert infos[f"{d}/webauthn_bridge.json"].issym() and infos[f"{d}/webauthn_bridge.json"].linkname == chromium
    m = json.loads(contents[chromium[1:]])
    assert (m["name"], m["path"], m["type"]) == ("webauthn_bridge", HOST, "stdio")
    assert set(m["allowed_origins"]) == {f"chrome-extension://{crx_id}/", f"chrome-extension://{repo_id}/"}


def test_policies_install_the_packaged_extension(deb):
    out, path = deb
    infos, contents = deb_members(path)
    crx_id = (out / "chromium-id.txt").read_text().strip()
    assert infos[CHROMIUM_POLICY].issym() and infos[CHROMIUM_POLICY].linkname == f"{SHARE}/policies/chromium-managed.json"
    chromium = json.loads(contents[f"{SHARE[1:]}/policies/chromium-managed.json"])
    assert chromium == {"ExtensionInstallForcelist": [f"{crx_id};file://{SHARE}/updates.xml"]}
    updates = contents[f"{SHARE[1:]}/updates.xml"].decode()
    assert f"appid='{crx_id}'" in updates and f"file://{SHARE}/webauthn-bridge.crx" in updates
    assert f"version='{VERSION}'" in updates
    # The unsigned .xpi goes to Firefox's system extension directory: no policies.json, so no preference that would
    # stop Firefox checking other add-ons' signatures (test_policy_install.py runs it in Firefox ESR).
    assert not [n for n in infos if n.endswith("policies.json") or n.startswith("etc/firefox")]


def test_man_page_is_the_written_one(deb):
    _, path = deb
    _, contents = deb_members(path)
    page = gzip.decompress(contents[f"usr/share/man/man1/{PRODUCT}.1.gz"])
    assert page == (REPO / "packaging" / f"{PRODUCT}.1").read_bytes()   # checked against the program: test_man_page.py


def test_no_directory_entry_the_package_does_not_own(deb):
    _, path = deb
    infos, _ = deb_members(path)
    for directory in NOT_OURS:
        assert directory not in infos
        assert [n for n in infos if n.startswith(directory + "/")]   # what the package puts there, it owns


def test_md5sums_match(deb, tmp_path):
    _, path = deb
    _, contents = deb_members(path)
    subprocess.run(["dpkg-deb", "--control", path, tmp_path / "control"], check=True)
    sums = dict(reversed(line.split("  ", 1)) for line in (tmp_path / "control" / "md5sums").read_text().splitlines())
    assert sums == {name: hashlib.md5(data).hexdigest() for name, data in contents.items()}


def test_lintian_has_no_errors_or_warnings(deb):
    _, path = deb
    if not shutil.which("lintian"):
        pytest.fail("lintian is not installed (scripts/test.sh installs it)")
    result = subprocess.run(["lintian", "--fail-on", "none", "-E", "-I", "--pedantic", path],
                            capture_output=True, text=True, timeout=300)
    print(result.stdout)
    tags = [line for line in result.stdout.splitlines() if line[:2] in ("E:", "W:")]
    assert tags == []


def test_build_is_reproducible(deb, tmp_path):
    out, path = deb
    (tmp_path / "again").mkdir()
    shutil.copy2(out / "throwaway-crx-key.pem", tmp_path / "again")   # the same CRX key, so the same CRX
    infos, _ = deb_members(path)
    again = build_deb(tmp_path / "again", str(infos[HOST[1:]].mtime))   # every file has the build's epoch
    assert again.read_bytes() == path.read_bytes()


def dpkg(root, *args):
    return subprocess.run(["dpkg", f"--root={root}", f"--log={root}/dpkg.log", "--force-depends", *args],
                          capture_output=True, text=True, timeout=120)


def files_outside_dpkg_db(root):
    return sorted(str(p.relative_to(root)) for p in Path(root).rglob("*")
                  if not str(p.relative_to(root)).startswith("var") and p.name != "dpkg.log")


def base_system(root):
    """An empty dpkg database, and the directories base-files' postinst makes (owned by no package)."""
    for d in ("info", "updates", "triggers"):
        (root / "var/lib/dpkg" / d).mkdir(parents=True)
    (root / "var/lib/dpkg/status").touch()
    for d in NOT_OURS:
        (root / d).mkdir(parents=True)


@pytest.mark.parametrize("removal", ["--remove", "--purge"])
def test_install_runs_the_host_then_removal_leaves_nothing(deb, tmp_path, removal):
    _, path = deb
    root = tmp_path / "root"
    base_system(root)
    before = files_outside_dpkg_db(root)
    installed = dpkg(root, "--install", path)
    assert installed.returncode == 0, installed.stderr
    said = subprocess.run([root / "usr/bin" / PRODUCT, "--version"], capture_output=True, text=True, timeout=30,
                          stdin=subprocess.DEVNULL)
    assert said.stdout.strip() == VERSION
    assert len(files_outside_dpkg_db(root)) > 40
    removed = dpkg(root, removal, PRODUCT)
    assert removed.returncode == 0, removed.stderr
    status = subprocess.run(["dpkg-query", f"--admindir={root}/var/lib/dpkg", "-W", "-f=${db:Status-Status}", PRODUCT],
                            capture_output=True, text=True)
    assert files_outside_dpkg_db(root) == before               # /etc/opt and its parent are still there
    assert status.stdout in ("", "not-installed")                # no conffiles kept, even after a plain remove


@pytest.fixture(scope="module")
def installed_root(deb, tmp_path_factory):
    """A `dpkg --root` install of the package; the commands below see it at / through throwaway_root."""
    problem = isolation_problem()
    if problem:
        pytest.skip(problem)
    root = tmp_path_factory.mktemp("installed")
    base_system(root)
    installed = dpkg(root, "--install", deb[1])
    assert installed.returncode == 0, installed.stderr
    return root


def packaged_demo(root, tmp_path):
    """`webauthn-bridge demo --browser chromium --headless`, README's second command, as the package installed it."""
    return Demo(Path(f"/usr/bin/{PRODUCT}"), "--browser", "chromium", "--headless", workdir=tmp_path,
                prefix=throwaway_root(root))


def test_packaged_demo_registers_with_the_packaged_extension(installed_root, tmp_path):
    demo = packaged_demo(installed_root, tmp_path)
    page = None
    try:
        assert demo.expect(r"extension:\s+(\S+)").group(1) == f"{SHARE}/extension"
        url = demo.expect(r"demo page:\s+(http://localhost:\d+/)").group(1)
        with urllib.request.urlopen(url, timeout=30) as served:
            assert "webauthn-bridge demo" in served.read().decode()
        page = Page("chromium", demo.expect(r"Remote control: (ws://\S+)").group(1))
        assert page.wait_for(f"location.href === {url!r} && document.readyState === 'complete' && "
                             f"{OVERRIDE_ACTIVE_JS} && window.demo.bridgeActive()", timeout=60), "".join(demo.output)
        registered = page.evaluate("demo.register('packaged')")
        assert registered["verified"] is True, registered
    finally:
        if page:
            page.close()
        demo.kill()


def test_packaged_demo_without_the_extension_says_where_it_looked(installed_root, tmp_path):
    """The check above holds only through the package's extension: without it the demo finds none and says so."""
    root = tmp_path / "root"
    shutil.copytree(installed_root, root, symlinks=True)
    shutil.rmtree(root / SHARE[1:] / "extension")
    demo = packaged_demo(root, tmp_path)
    try:
        demo.expect(r"extension was not found; looked in:")
        demo.expect(re.escape(f"{SHARE}/extension"))
        assert demo.proc.wait(timeout=60) != 0
    finally:
        demo.kill()


def packaged_doctor(root, home):
    home.mkdir(exist_ok=True)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": str(home)}
    return subprocess.run([*throwaway_root(root), f"/usr/bin/{PRODUCT}", "doctor"], capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL, env=env)


def test_packaged_doctor_finds_the_package_and_advises_the_package(installed_root, tmp_path):
    healthy = packaged_doctor(installed_root, tmp_path / "home")
    said = healthy.stdout + healthy.stderr
    assert healthy.returncode == 0, said
    for browser in ("Firefox", "Chromium"):
        assert re.search(rf"OK\s+host manifest for {browser}.*→ {HOST}", said), said
    assert "install.sh" not in said, said
    # A manifest gone from the package's place: the fix is the package's, never a clone's install.sh.
    root = tmp_path / "root"
    shutil.copytree(installed_root, root, symlinks=True)
    (root / FIREFOX_DIRS[0] / "webauthn_bridge.json").unlink()
    broken = packaged_doctor(root, tmp_path / "home")
    said = broken.stdout + broken.stderr
    assert "sudo apt install --reinstall webauthn-bridge" in said, said
    assert "install.sh" not in said, said
