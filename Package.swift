// swift-tools-version:6.0
import PackageDescription

// Module graph (arrows point one way only; nothing on the request path depends on a tool):
//   webauthn-bridge → BridgeHost (the request path) → {NativeMessaging, WebAuthn, FIDO, Prompts, Processes, CTAP, …}
//   webauthn-bridge → SoftToken  (SoftTokenDeviceProvider: BridgeHost reaches keys only through FIDO's DeviceProvider)
//   webauthn-bridge → tools, each over the host's modules and never depended on by them:
//     Diagnostics → {BridgeHost, FIDO, Prompts, Processes}   (doctor, devices, log)
//     Benchmark → {BridgeHost, SoftToken, Processes}         (bench)
//     Demo → {WebAuthn, Cryptography, SoftToken, Processes}  (demo)
//     TokenTool → {SoftToken, FIDO, WebAuthn, Threading}      (token)
//     KeyTool → {BridgeHost, CTAP, FIDO, Prompts, WebAuthn}    (key)
//   FIDO → {CFIDO2, CTAP, Threading, Secrets};  Prompts → {Secrets, Threading, Processes};  Processes → Threading
//   SoftToken → {CFIDO2, CBOR, CTAP, Cryptography, Threading};  WebAuthn → {CBOR, Cryptography, CPSL}
//   CTAP (command and status bytes) ← SoftToken and BridgeHost's CTAP trace
// Release links on Linux use lld (it ships with the Swift toolchain; the default gold cannot) to pack relative
// relocations (DT_RELR, glibc ≥ 2.36): start-up reads ~8 KB of them instead of ~1 MB, ~0.9 MB less resident
// memory per host. A hand-made function order saved another ~1.8 MB and went stale with every change, so it is
// gone (docs/performance.md, "Memory and the link"). `-z now` binds every symbol at start-up so the GOT can be made
// read-only (full RELRO; lintian's hardening-no-bindnow).
let releaseLinkLayout: [LinkerSetting] = [
    .unsafeFlags(
        [
            "-use-ld=lld",
            "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
            "-Xlinker", "-z", "-Xlinker", "now",
        ], .when(platforms: [.linux], configuration: .release))
]

let package = Package(
    name: "WebAuthnBridge",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "webauthn-bridge", targets: ["webauthn-bridge"]),
        // For packages outside the normal build that drive the modules directly (Fuzz/, libFuzzer targets).
        .library(
            name: "WebAuthnBridgeModules",
            targets: [
                "CBOR", "CTAP", "NativeMessaging", "WebAuthn", "FIDO", "Prompts", "Secrets", "SoftToken", "BridgeHost",
            ]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
    ],
    targets: [
        .systemLibrary(name: "CFIDO2", pkgConfig: "libfido2", providers: [.apt(["libfido2-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CPSL", pkgConfig: "libpsl", providers: [.apt(["libpsl-dev"])]),

        .target(name: "CBOR"),
        // CTAP's command and status bytes, once: SoftToken answers with them, the host's CTAP trace names them.
        .target(name: "CTAP"),
        .target(name: "Cryptography", dependencies: ["COpenSSL"]),
        .target(name: "NativeMessaging"),
        .target(name: "Threading"),
        // Starting, waiting for and stopping child processes: the one posix_spawn (pinentry, the probed host, the
        // demo's browser).
        .target(name: "Processes", dependencies: ["Threading"]),
        .target(name: "WebAuthn", dependencies: ["CBOR", "Cryptography", "CPSL"]),
        .target(name: "Secrets"),
        .target(name: "FIDO", dependencies: ["CFIDO2", "CBOR", "CTAP", "Threading", "Secrets"]),
        .target(name: "Prompts", dependencies: ["Secrets", "Threading", "Processes"]),
        .target(name: "SoftToken", dependencies: ["CFIDO2", "CBOR", "CTAP", "Cryptography", "Threading"]),
        .target(
            name: "BridgeHost",
            dependencies: [
                "NativeMessaging", "WebAuthn", "FIDO", "Prompts", "Processes", "Secrets", "CBOR", "CTAP",
                "Cryptography", "Threading",
            ]),
        // `webauthn-bridge doctor`, `devices` and `log`: checks of an installation, the keys' report, the log reader.
        .target(
            name: "Diagnostics",
            dependencies: ["BridgeHost", "NativeMessaging", "WebAuthn", "FIDO", "Prompts", "Processes"]),
        // `webauthn-bridge token`: a SoftToken shown to a person (text, JSON), the presence option, U2F-era registration.
        .target(name: "TokenTool", dependencies: ["SoftToken", "FIDO", "WebAuthn", "Threading"]),
        // `webauthn-bridge key`: the owner's view of a key (its passkeys and slots) through libfido2's credman API.
        .target(name: "KeyTool", dependencies: ["BridgeHost", "CTAP", "FIDO", "Prompts", "Secrets", "WebAuthn"]),
        // `webauthn-bridge bench`: drives the real host binary over its pipes against a SoftToken.
        .target(
            name: "Benchmark",
            dependencies: [
                "BridgeHost", "SoftToken", "NativeMessaging", "Processes", "WebAuthn", "Cryptography", "Threading",
            ]),
        // `webauthn-bridge demo`: a SoftToken, a small relying party on loopback and a throwaway browser profile.
        .target(
            name: "Demo", dependencies: ["WebAuthn", "Cryptography", "CBOR", "SoftToken", "Processes", "Threading"]),
        .executableTarget(
            name: "webauthn-bridge",
            dependencies: [
                "BridgeHost", "Diagnostics", "Benchmark", "Demo", "TokenTool", "KeyTool", "SoftToken", "FIDO",
                "Prompts", "WebAuthn", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ], linkerSettings: releaseLinkLayout),

        .testTarget(name: "CBORTests", dependencies: ["CBOR"]),
        .testTarget(name: "CTAPTests", dependencies: ["CTAP", "CFIDO2"]),
        .testTarget(name: "CryptographyTests", dependencies: ["Cryptography"]),
        // What several test targets share (Tests/TestSupport).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "NativeMessagingTests", dependencies: ["NativeMessaging", "TestSupport"]),
        .testTarget(name: "WebAuthnTests", dependencies: ["WebAuthn", "CBOR", "Cryptography"]),
        .testTarget(name: "FIDOTests", dependencies: ["FIDO", "SoftToken", "CFIDO2", "CBOR"]),
        .testTarget(name: "PromptsTests", dependencies: ["Prompts", "Processes", "Secrets", "TestSupport"]),
        .testTarget(name: "ProcessesTests", dependencies: ["Processes"]),
        .testTarget(
            name: "SoftTokenTests",
            dependencies: ["SoftToken", "CTAP", "FIDO", "Secrets", "CFIDO2", "CBOR", "Cryptography"]),
        .testTarget(name: "ThreadingTests", dependencies: ["Threading"]),
        .testTarget(
            name: "BridgeHostTests",
            dependencies: ["BridgeHost", "NativeMessaging", "WebAuthn", "SoftToken", "Prompts", "Secrets", "Threading"]),
        .testTarget(name: "DiagnosticsTests", dependencies: ["Diagnostics", "BridgeHost"]),
        .testTarget(name: "TokenToolTests", dependencies: ["TokenTool", "SoftToken"]),
        .testTarget(name: "DemoTests", dependencies: ["Demo", "Processes", "WebAuthn", "Cryptography", "CBOR"]),
    ]
)
