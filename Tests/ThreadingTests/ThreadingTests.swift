import Foundation
import Synchronization
import Testing
import Threading

struct ConditionTests {
    @Test func aWaitWithNoSignalEndsAtItsDeadline() {
        let condition = Condition()
        let started = Date()
        let signalled = condition.withLock { condition.wait(until: started.addingTimeInterval(0.2)) }
        let waited = Date().timeIntervalSince(started)
        #expect(!signalled)
        #expect(waited >= 0.19 && waited < 5)
    }

    @Test func aSignalFromAnotherThreadEndsTheWaitAndHandsOverState() {
        let condition = Condition()
        nonisolated(unsafe) var value = 0
        startDetachedThread(name: "signaller") {
            condition.withLock { value = 42; condition.signal() }
        }
        let deadline = Date().addingTimeInterval(10)
        let seen = condition.withLock { () -> Int in
            while value == 0, Date() < deadline { condition.wait(until: deadline) }
            return value
        }
        #expect(seen == 42)
    }
}

struct DetachedThreadTests {
    @Test func theBodyRunsOnANewThreadCarryingTheName() {
        let done = Condition()
        nonisolated(unsafe) var result: (name: String, sameThread: Bool)?
        let caller = pthread_self()
        startDetachedThread(name: "a-name-longer-than-fifteen-bytes") {
            let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            let same = pthread_equal(pthread_self(), caller) != 0
            done.withLock { result = (name, same); done.signal() }
        }
        let deadline = Date().addingTimeInterval(10)
        done.withLock { while result == nil, Date() < deadline { done.wait(until: deadline) } }
        #expect(result?.name == "a-name-longer-t\n")
        #expect(result?.sameThread == false)
    }
}

struct ThreadLocalTests {
    @Test func eachThreadSeesOnlyItsOwnValue() {
        let local = ThreadLocal<String>()
        local.value = "main"
        let done = Condition()
        nonisolated(unsafe) var seen: (before: String?, after: String?)?
        startDetachedThread(name: "other") {
            let before = local.value
            local.value = "other"
            let after = local.value
            done.withLock { seen = (before, after); done.signal() }
        }
        let deadline = Date().addingTimeInterval(10)
        done.withLock { while seen == nil, Date() < deadline { done.wait(until: deadline) } }
        #expect(seen?.before == nil)
        #expect(seen?.after == "other")
        #expect(local.value == "main")
        local.value = nil
        #expect(local.value == nil)
    }
}
