import ArgumentParser
import FIDO
import KeyTool

extension KeyCommand {
    /// `key fingerprints [list]|add|rename|delete`: the fingers of a key with a fingerprint reader.
    struct Fingerprints: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List, add, rename and delete the fingerprints of a key with a fingerprint reader.",
            subcommands: [List.self, Add.self, Rename.self, Delete.self], defaultSubcommand: List.self)

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List the enrolled fingerprints (ID and name).")

            @OptionGroup var key: KeyOptions

            @Flag(help: "Print JSON instead of text.")
            var json = false

            func run() throws {
                let report = try FingerprintManager(access: key.access()).list()
                print(json ? report.json.serializedString : report.text)
            }
        }

        struct Add: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Enroll a finger: touch the sensor again and again, as each sample's feedback says.")

            @Argument(help: "A name for the fingerprint (e.g. \"Left thumb\").")
            var name: String?

            @OptionGroup var key: KeyOptions

            func run() throws {
                let added = try FingerprintManager(access: key.access()).add(
                    name: name,
                    onStart: { samples in
                        KeyOptions.say(
                            "Touch the fingerprint sensor with the finger to enroll"
                                + (samples > 0 ? " (about \(samples) good samples)." : "."))
                    },
                    onSample: { sample in
                        let next = sample.remaining == 0 ? "done" : "\(sample.remaining) more to go, touch again"
                        KeyOptions.say("Sample: \(sample.advice); \(next).")
                    })
                print(
                    "Enrolled fingerprint \(FingerprintReport.hex(added.templateID))"
                        + (added.name.map { " (\($0))" } ?? "") + ".")
            }
        }

        struct Rename: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Give a fingerprint a new name.")

            @OptionGroup var template: TemplateID

            @Argument(help: "The new name.")
            var name: String

            @OptionGroup var key: KeyOptions

            func run() throws {
                let renamed = try FingerprintManager(access: key.access()).rename(
                    templateID: template.bytes(), name: name)
                print("Renamed fingerprint \(template.id) (was \(FingerprintReport.displayName(renamed))) to \(name).")
            }
        }

        struct Delete: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Delete a fingerprint: the key no longer recognises that finger.")

            @OptionGroup var template: TemplateID

            @Flag(help: "Delete without asking for confirmation (for scripts).")
            var yes = false

            @OptionGroup var key: KeyOptions

            func run() throws {
                let yes = yes
                let id = template.id
                let deleted = try FingerprintManager(access: key.access()).delete(templateID: template.bytes()) {
                    yes || KeyOptions.confirm("Delete fingerprint \(id) (\(FingerprintReport.displayName($0)))?")
                }
                guard let deleted else {
                    print("Nothing deleted.")
                    throw ExitCode(1)
                }
                print("Deleted fingerprint \(id) (\(FingerprintReport.displayName(deleted))).")
            }
        }
    }
}

/// The template ID a fingerprint command acts on.
struct TemplateID: ParsableArguments {
    @Argument(help: "The fingerprint's ID (hex), as `key fingerprints` shows it.")
    var id: String

    func bytes() throws -> [UInt8] {
        guard let bytes = FingerprintReport.templateID(id) else {
            throw ValidationError("'\(id)' is not a fingerprint ID; copy one from `key fingerprints`.")
        }
        return bytes
    }
}
