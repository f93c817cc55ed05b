/// Generated from extension/chromium-id.txt; keep the two in step (a test checks they match).
enum ChromiumExtensionID {
    static let value = "aiklgkojchcnedchmjdalekighpinmfa"
}
