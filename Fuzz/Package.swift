// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets for the parsers of webauthn-bridge. Not part of the normal build: scripts/fuzz.sh builds this
// package in its own scratch directory with -sanitize=fuzzer,address (see docs/robustness.md).
// Each `fuzz-*` target is one executable whose LLVMFuzzerTestOneInput feeds bytes to one parser of the host;
// `fuzz-seeds` records real traffic (libfido2 ↔ SoftToken) into the seed corpora.
let modules: Target.Dependency = .product(name: "WebAuthnBridgeModules", package: "WebAuthnBridge")

let fuzzTargets = [
    "fuzz-frame-reader", "fuzz-json-options", "fuzz-origin-rpid", "fuzz-base64url", "fuzz-cbor",
    "fuzz-authenticator-output", "fuzz-assuan", "fuzz-ctaphid", "fuzz-ctap-commands", "fuzz-softtoken-state",
    "fuzz-seeds",
]

let package = Package(
    name: "WebAuthnBridgeFuzz",
    dependencies: [.package(name: "WebAuthnBridge", path: "..")],
    targets: [
        .target(name: "FuzzSupport", dependencies: [modules])
    ]
        + fuzzTargets.map { name in
            .executableTarget(name: name, dependencies: ["FuzzSupport", modules], path: "Sources/\(name)")
        }
)
