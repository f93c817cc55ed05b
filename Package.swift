// swift-tools-version:6.0
import PackageDescription

// Module graph (arrows point one way only):
//   webauthn-bridge → BridgeHost → {NativeMessaging, WebAuthn, FIDO, Prompts, Threading}
//   webauthn-bridge → SoftToken  (SoftTokenDeviceProvider: BridgeHost reaches keys only through FIDO's DeviceProvider)
//   webauthn-bridge → Benchmark → {BridgeHost, SoftToken}  (the bench command)
//   webauthn-bridge → Demo → {WebAuthn, Cryptography, SoftToken, Prompts}  (the demo command)
//   FIDO → {CFIDO2, Threading, Secrets};  Prompts → {Secrets, Threading};  SoftToken → {CFIDO2, CBOR, Cryptography, Threading};  WebAuthn → {CBOR, Cryptography, CPSL}
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
                "CBOR", "NativeMessaging", "WebAuthn", "FIDO", "Prompts", "Secrets", "SoftToken", "BridgeHost",
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
        .target(name: "Cryptography", dependencies: ["COpenSSL"]),
        .target(name: "NativeMessaging"),
        .target(name: "Threading"),
        .target(name: "WebAuthn", dependencies: ["CBOR", "Cryptography", "CPSL"]),
        .target(name: "Secrets"),
        .target(name: "FIDO", dependencies: ["CFIDO2", "CBOR", "Threading", "Secrets"]),
        .target(name: "Prompts", dependencies: ["Secrets", "Threading"]),
        .target(name: "SoftToken", dependencies: ["CFIDO2", "CBOR", "Cryptography", "Threading"]),
        .target(
            name: "BridgeHost",
            dependencies: [
                "NativeMessaging", "WebAuthn", "FIDO", "Prompts", "Secrets", "CBOR", "Cryptography", "Threading",
            ]),
        // `webauthn-bridge bench`: drives the real host binary over its pipes against a SoftToken.
        .target(
            name: "Benchmark",
            dependencies: [
                "BridgeHost", "SoftToken", "NativeMessaging", "Prompts", "WebAuthn", "Cryptography", "Threading",
            ]),
        // `webauthn-bridge demo`: a SoftToken, a small relying party on loopback and a throwaway browser profile.
        .target(name: "Demo", dependencies: ["WebAuthn", "Cryptography", "CBOR", "SoftToken", "Prompts", "Threading"]),
        .executableTarget(
            name: "webauthn-bridge",
            dependencies: [
                "BridgeHost", "Benchmark", "Demo", "SoftToken", "FIDO", "WebAuthn",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ], linkerSettings: releaseLinkLayout),

        .testTarget(name: "CBORTests", dependencies: ["CBOR"]),
        .testTarget(name: "CryptographyTests", dependencies: ["Cryptography"]),
        // What several test targets share (Tests/TestSupport).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "NativeMessagingTests", dependencies: ["NativeMessaging", "TestSupport"]),
        .testTarget(name: "WebAuthnTests", dependencies: ["WebAuthn", "CBOR", "Cryptography"]),
        .testTarget(name: "FIDOTests", dependencies: ["FIDO", "SoftToken", "CFIDO2", "CBOR"]),
        .testTarget(name: "PromptsTests", dependencies: ["Prompts", "Secrets", "TestSupport"]),
        .testTarget(
            name: "SoftTokenTests", dependencies: ["SoftToken", "FIDO", "Secrets", "CFIDO2", "CBOR", "Cryptography"]),
        .testTarget(name: "ThreadingTests", dependencies: ["Threading"]),
        .testTarget(
            name: "BridgeHostTests",
            dependencies: ["BridgeHost", "NativeMessaging", "WebAuthn", "SoftToken", "Prompts", "Secrets", "Threading"]),
        .testTarget(name: "DemoTests", dependencies: ["Demo", "WebAuthn", "Cryptography", "CBOR"]),
    ]
)
