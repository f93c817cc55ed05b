import WebAuthn

/// The demo server's few routes. Requests must name this server (Host `localhost:PORT`, so a page elsewhere
/// cannot reach it through DNS rebinding), and every POST must come from the demo page itself (Origin) with a
/// JSON body:
///   GET  /                        the page
///   GET  /demo.js, /demo.css      its script and style
///   GET  /api/verified            the last verified registration and sign-in
///   POST /api/register/options    {username} → creation options (base64url members)
///   POST /api/register/verify     the credential → what was verified
///   POST /api/login/options       {} → request options for every credential registered here
///   POST /api/login/verify        the credential → what was verified
public struct DemoRoutes: Sendable {
    public let relyingParty: DemoRelyingParty
    let host: String
    let log: @Sendable (String) -> Void

    public init(relyingParty: DemoRelyingParty, port: UInt16, log: @escaping @Sendable (String) -> Void) {
        self.relyingParty = relyingParty
        host = "\(DemoRelyingParty.rpID):\(port)"
        self.log = log
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        guard request.header("host") == host else {
            return .text(
                421,
                "This server answers only as http://\(host)/ (a relying party needs a domain name, not an IP address).")
        }
        if request.method == "GET" {
            switch request.path {
            case "/":
                return HTTPResponse(
                    status: 200, contentType: "text/html; charset=utf-8", body: Array(DemoPage.html.utf8))
            case "/demo.js":
                return HTTPResponse(
                    status: 200, contentType: "text/javascript; charset=utf-8", body: Array(DemoPage.script.utf8))
            case "/demo.css":
                return HTTPResponse(
                    status: 200, contentType: "text/css; charset=utf-8", body: Array(DemoPage.style.utf8))
            case "/api/verified": return json(200, relyingParty.lastVerified)
            default: return .text(404, "Not found.")
            }
        }
        guard
            ["/api/register/options", "/api/register/verify", "/api/login/options", "/api/login/verify"].contains(
                request.path)
        else {
            return .text(404, "Not found.")
        }
        guard request.header("origin") == relyingParty.origin else {
            return .text(403, "POST only from the demo page.")
        }
        guard request.header("content-type")?.split(separator: ";").first?.trimmingWhitespace() == "application/json"
        else {
            return .text(415, "The body must be application/json.")
        }
        let body: JSONValue
        do { body = try JSONValue.parse(request.body) } catch { return failure(400, "the body is not JSON: \(error)") }
        return post(request.path, body)
    }

    private func post(_ path: String, _ body: JSONValue) -> HTTPResponse {
        switch path {
        case "/api/register/options":
            let name = body["username"]?.stringValue ?? ""
            guard (1...64).contains(name.count),
                name.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
            else {
                return failure(400, "choose a user name of 1 to 64 printable characters")
            }
            return json(200, relyingParty.registrationOptions(userName: name))
        case "/api/login/options":
            guard let options = relyingParty.authenticationOptions() else {
                return failure(400, "register a credential first")
            }
            return json(200, options)
        default:
            do {
                let credential = try CredentialFields(json: body)
                let verified =
                    path == "/api/register/verify"
                    ? try relyingParty.verifyRegistration(credential)
                    : try relyingParty.verifyAuthentication(credential)
                log(
                    "verified \(verified["ceremony"]?.stringValue ?? "ceremony") for \(verified["user"]?.stringValue ?? "?")"
                )
                return json(200, .object([("verified", true)] + (verified.objectValue ?? [])))
            } catch {
                log("refused: \(error)")
                return failure(400, error.description)
            }
        }
    }

    private func json(_ status: Int, _ value: JSONValue) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: value.serialized())
    }

    private func failure(_ status: Int, _ message: String) -> HTTPResponse {
        json(status, ["verified": false, "error": .string(message)])
    }
}
