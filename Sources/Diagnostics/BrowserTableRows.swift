// Generated from manifests/browsers.tsv by scripts/generate-browser-table.py: edit the table, not this file.

extension BrowserTable {
    static let rows: [Row] = [
        Row(
            id: "firefox", name: "Firefox", kind: "firefox", profile: "~/.mozilla",
            manifests: "~/.mozilla/native-messaging-hosts", systemManifests: "/usr/lib/mozilla/native-messaging-hosts",
            extensions: "/usr/share/mozilla/extensions/{ec8030f7-c20a-464f-9b0e-13a3a9e97384}",
            policies: "/etc/firefox/policies", command: "firefox", flatpak: "org.mozilla.firefox", snap: "firefox"),
        Row(
            id: "firefox-esr", name: "Firefox ESR", kind: "firefox", profile: "~/.mozilla",
            manifests: "~/.mozilla/native-messaging-hosts", systemManifests: "/usr/lib/mozilla/native-messaging-hosts",
            extensions: "/usr/share/mozilla/extensions/{ec8030f7-c20a-464f-9b0e-13a3a9e97384}",
            policies: "/etc/firefox/policies", command: "firefox-esr", flatpak: "-", snap: "-"),
        Row(
            id: "librewolf", name: "LibreWolf", kind: "firefox", profile: "~/.librewolf",
            manifests: "~/.librewolf/native-messaging-hosts",
            systemManifests: "/usr/lib/librewolf/native-messaging-hosts", extensions: "-", policies: "-",
            command: "librewolf", flatpak: "io.gitlab.librewolf-community", snap: "-"),
        Row(
            id: "chromium", name: "Chromium", kind: "chromium", profile: "$XDG_CONFIG_HOME/chromium",
            manifests: "$XDG_CONFIG_HOME/chromium/NativeMessagingHosts",
            systemManifests: "/etc/chromium/native-messaging-hosts", extensions: "-",
            policies: "/etc/chromium/policies/managed", command: "chromium", flatpak: "org.chromium.Chromium",
            snap: "chromium"),
        Row(
            id: "google-chrome", name: "Google Chrome", kind: "chromium", profile: "$XDG_CONFIG_HOME/google-chrome",
            manifests: "$XDG_CONFIG_HOME/google-chrome/NativeMessagingHosts",
            systemManifests: "/etc/opt/chrome/native-messaging-hosts", extensions: "-", policies: "-",
            command: "google-chrome", flatpak: "com.google.Chrome", snap: "-"),
        Row(
            id: "brave", name: "Brave", kind: "chromium", profile: "$XDG_CONFIG_HOME/BraveSoftware/Brave-Browser",
            manifests: "$XDG_CONFIG_HOME/BraveSoftware/Brave-Browser/NativeMessagingHosts",
            systemManifests: "/etc/opt/chrome/native-messaging-hosts", extensions: "-", policies: "-",
            command: "brave-browser", flatpak: "com.brave.Browser", snap: "-"),
        Row(
            id: "vivaldi", name: "Vivaldi", kind: "chromium", profile: "$XDG_CONFIG_HOME/vivaldi",
            manifests: "$XDG_CONFIG_HOME/vivaldi/NativeMessagingHosts",
            systemManifests: "/etc/opt/chrome/native-messaging-hosts", extensions: "-", policies: "-",
            command: "vivaldi", flatpak: "com.vivaldi.Vivaldi", snap: "-"),
        Row(
            id: "microsoft-edge", name: "Microsoft Edge", kind: "chromium", profile: "$XDG_CONFIG_HOME/microsoft-edge",
            manifests: "$XDG_CONFIG_HOME/microsoft-edge/NativeMessagingHosts",
            systemManifests: "/etc/opt/edge/native-messaging-hosts", extensions: "-", policies: "-",
            command: "microsoft-edge", flatpak: "com.microsoft.Edge", snap: "-"),
    ]
}
