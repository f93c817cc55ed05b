import Foundation
import Testing
import WebAuthn

@testable import BridgeHost

/// The `index` of a `select` frame comes from a page: every JSON value must be read without trapping.
struct AccountChoiceTests {
    @Test(arguments: [
        (JSONValue.number(0), AccountChoice.index(0)),
        (.number(3), .index(3)),
        (.number(-0.0), .index(0)),
    ])
    func nonNegativeIntegersAreIndices(value: JSONValue, expected: AccountChoice) {
        #expect(AccountChoice(value) == expected)
    }

    @Test func nullOrNoIndexIsADeclinedChoice() {
        #expect(AccountChoice(nil) == .declined)
        #expect(AccountChoice(.null) == .declined)
    }

    @Test(arguments: [1e300, -1e300, -1, 0.5, 0x1p63, -0x1p63, Double.infinity, -Double.infinity, Double.nan])
    func numbersThatAreNoIndexAreInvalidWithoutTrapping(number: Double) {
        guard case .invalid = AccountChoice(.number(number)) else {
            Issue.record("\(number) taken as \(AccountChoice(.number(number)))")
            return
        }
    }

    @Test(arguments: [
        JSONValue.string("0"), .bool(true), .array([.number(0)]), .object([("i", .number(0))]), .binary([0]),
    ])
    func valuesOfOtherTypesAreInvalid(value: JSONValue) {
        #expect(AccountChoice(value) == .invalid("an index that is not a number"))
    }
}

/// A chooser takes exactly one answer, and only while it is open.
struct CeremonySelectionTests {
    @Test func aSelectionBeforeTheChooserOpensIsRefusedAndNotKept() {
        let controller = CeremonyController(id: "g-1")
        #expect(!controller.deliverSelection(0))
        controller.expectSelection()
        #expect(controller.awaitSelection(until: .now) == .timedOut)
    }

    @Test func anOpenChooserTakesOneAnswerAndRefusesTheRest() {
        let controller = CeremonyController(id: "g-1")
        controller.expectSelection()
        #expect(controller.deliverSelection(1))
        #expect(!controller.deliverSelection(0))
        #expect(controller.awaitSelection(until: .after(.seconds(5))) == .chosen(1))
    }

    @Test func aSelectionAfterTheChooserClosedIsRefused() {
        let controller = CeremonyController(id: "g-1")
        controller.expectSelection()
        #expect(controller.awaitSelection(until: .now) == .timedOut)
        #expect(!controller.deliverSelection(nil))
    }
}
