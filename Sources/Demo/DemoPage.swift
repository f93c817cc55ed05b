/// The demo page, its script and its style, served from this origin only (the server's CSP allows nothing
/// else). The script turns the server's base64url options into WebAuthn's buffers, calls
/// navigator.credentials — which the extension, when loaded, hands to webauthn-bridge and its SoftToken — and
/// shows what the server verified. Server text is put in the page as text, never as markup.
enum DemoPage {
    static let html = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>webauthn-bridge demo</title>
        <link rel="stylesheet" href="/demo.css">
        <script src="/demo.js" defer></script>
        </head>
        <body>
        <h1>webauthn-bridge demo</h1>
        <p id="bridge" class="note">Checking whether the webauthn-bridge extension serves this page…</p>
        <p>This page is a small relying party served by <code>webauthn-bridge demo</code> on this machine only. Its
        security key is a <strong>SoftToken</strong>: a software authenticator in a temporary directory, removed when
        the demo stops. Nothing here touches your real browser profile or your keys.</p>
        <form id="form">
        <label>User name <input id="username" value="demo-user" maxlength="64" autocomplete="off"></label>
        <button id="register" type="button">Register</button>
        <button id="signin" type="button">Sign in</button>
        </form>
        <h2>What the server verified</h2>
        <p id="status" class="note">Nothing yet: register first, then sign in.</p>
        <table id="result"></table>
        </body>
        </html>
        """

    static let style = """
        body { font: 16px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; }
        .note { padding: .5rem .75rem; border-radius: .4rem; background: #eef; }
        .ok { background: #e6f6e6; } .bad { background: #fbe9e9; }
        table { border-collapse: collapse; width: 100%; } th { text-align: left; width: 12rem; vertical-align: top; }
        td, th { padding: .25rem .5rem; border-bottom: 1px solid #ddd; } td { word-break: break-all; font-family: monospace; }
        button { margin-left: .5rem; }
        """

    static let script = #"""
        "use strict";
        const $ = (id) => document.getElementById(id);

        function fromB64url(text) {
          const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - text.length % 4) % 4));
          return Uint8Array.from(binary, (c) => c.charCodeAt(0));
        }

        function toB64url(buffer) {
          let binary = "";
          for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
          return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
        }

        async function post(path, body) {
          const response = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
          return response.json().catch(() => ({verified: false, error: `HTTP ${response.status}`}));
        }

        function credentialJSON(credential) {
          const r = credential.response;
          const response = {clientDataJSON: toB64url(r.clientDataJSON)};
          for (const name of ["attestationObject", "authenticatorData", "signature", "userHandle"]) {
            if (r[name]) response[name] = toB64url(r[name]);
          }
          return {id: credential.id, rawId: toB64url(credential.rawId), type: credential.type, response};
        }

        async function ceremony(kind, optionsPath, verifyPath, body, call) {
          $("status").textContent = `${kind}: waiting for the authenticator…`;
          const options = await post(optionsPath, body);
          if (options.error) return show(options);
          let credential;
          try {
            credential = await call(options);
          } catch (error) {
            return show({verified: false, error: `the browser answered ${error.name}: ${error.message}`});
          }
          return show(await post(verifyPath, credentialJSON(credential)));
        }

        function register(username = $("username").value) {
          return ceremony("Register", "/api/register/options", "/api/register/verify", {username}, (o) =>
            navigator.credentials.create({publicKey: {...o, challenge: fromB64url(o.challenge), user: {...o.user, id: fromB64url(o.user.id)}}}));
        }

        function signIn() {
          return ceremony("Sign in", "/api/login/options", "/api/login/verify", {}, (o) =>
            navigator.credentials.get({publicKey: {...o, challenge: fromB64url(o.challenge),
              allowCredentials: o.allowCredentials.map((c) => ({...c, id: fromB64url(c.id)}))}}));
        }

        const ROWS = [
          ["ceremony", "Ceremony"], ["user", "User"], ["origin", "Origin"], ["challenge", "Challenge"], ["rpId", "rp.id"],
          ["rpIdHash", "rp.id hash (SHA-256)"], ["rpIdHashValid", "rp.id hash valid"], ["flags", "Flags"],
          ["signatureValid", "Signature valid"], ["previousCounter", "Counter before"], ["counter", "Counter"],
          ["credentialId", "Credential id"], ["algorithm", "Algorithm"], ["attestationFormat", "Attestation format"],
          ["attestation", "Attestation"], ["aaguid", "AAGUID"],
        ];

        function cell(value) {
          if (value && typeof value === "object") {
            return Object.entries(value).map(([k, v]) => `${k}=${v ? "yes" : "no"}`).join("  ");
          }
          return value === true ? "yes" : String(value);
        }

        function show(result) {
          const table = $("result");
          table.replaceChildren();
          $("status").className = "note " + (result.verified ? "ok" : "bad");
          $("status").textContent = result.verified ? "Verified by the server." : `Refused: ${result.error}`;
          for (const [key, label] of ROWS) {
            if (!(key in result)) continue;
            const row = table.insertRow();
            row.appendChild(document.createElement("th")).textContent = label;
            row.insertCell().textContent = cell(result[key]);
          }
          return result;
        }

        function bridgeActive() {
          return navigator.credentials.create.__webauthnBridge === true && navigator.credentials.get.__webauthnBridge === true;
        }

        function showBridge() {
          const active = bridgeActive();
          $("bridge").className = "note " + (active ? "ok" : "bad");
          $("bridge").textContent = active
            ? "The webauthn-bridge extension serves this page: create() and get() go to the webauthn-bridge host and its SoftToken."
            : "The webauthn-bridge extension is not active in this page: this browser's own WebAuthn would answer.";
        }

        $("register").addEventListener("click", () => register());
        $("signin").addEventListener("click", () => signIn());
        showBridge();
        // The first page a browser opens can load before the extension has registered its scripts: reload once.
        if (!bridgeActive() && !sessionStorage.getItem("reloadedForExtension")) {
          sessionStorage.setItem("reloadedForExtension", "1");
          setTimeout(() => location.reload(), 1000);
        }
        window.demo = {register, signIn, bridgeActive};
        // ?auto=1: register and sign in at once, for a browser nobody drives (a test of the printed commands).
        if (bridgeActive() && new URLSearchParams(location.search).get("auto") === "1") {
          register("auto").then((result) => result.verified && signIn());
        }
        """#
}
