import Foundation
import Synchronization
import Testing
import Threading

struct ConditionTests {
    @Test func aWaitWithNoSignalEndsAtItsDeadline() {
        let condition = Condition()
        let started = ContinuousClock.now
        let signalled = condition.withLock { condition.wait(until: .after(.milliseconds(200))) }
        let waited = ContinuousClock.now - started
        #expect(!signalled)
        #expect(waited >= .milliseconds(200) && waited < .seconds(5))
    }

    @Test func aSignalFromAnotherThreadEndsTheWaitAndHandsOverState() {
        let condition = Condition()
        nonisolated(unsafe) var value = 0
        startDetachedThread(name: "signaller") {
            condition.withLock {
                value = 42
                condition.signal()
            }
        }
        let deadline = Deadline.after(.seconds(10))
        let seen = condition.withLock { () -> Int in
            while value == 0, !deadline.isPast { condition.wait(until: deadline) }
            return value
        }
        #expect(seen == 42)
    }
}

struct DeadlineTests {
    @Test func aPassedDeadlineHasNothingLeft() {
        let passed = Deadline(ContinuousClock.now - .seconds(1))
        #expect(passed.isPast)
        #expect(passed.remaining == .zero)
        #expect(passed.remainingMilliseconds == 0)
        #expect(Deadline.now.isPast)
    }

    @Test func theMillisecondsLeftAreRoundedUpSoAWaitEndsNoEarlier() {
        let deadline = Deadline.after(.seconds(3600) + .microseconds(1))
        #expect(!deadline.isPast)
        // Read before `remaining`, which only shrinks: rounded down, it would fall short of the time left.
        let milliseconds = deadline.remainingMilliseconds
        #expect(Duration.milliseconds(milliseconds) >= deadline.remaining)
        #expect(milliseconds <= 3_600_001)
        #expect(Deadline.after(.microseconds(1)).remainingMilliseconds <= 1)
    }

    @Test func theEarlierOfTwoDeadlinesIsTheMinimum() {
        let soon = Deadline.after(.seconds(1))
        let later = Deadline.after(.seconds(2))
        #expect(min(soon, later) == soon)
        #expect(soon < later)
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
            done.withLock {
                result = (name, same)
                done.signal()
            }
        }
        let deadline = Deadline.after(.seconds(10))
        done.withLock { while result == nil, !deadline.isPast { done.wait(until: deadline) } }
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
            done.withLock {
                seen = (before, after)
                done.signal()
            }
        }
        let deadline = Deadline.after(.seconds(10))
        done.withLock { while seen == nil, !deadline.isPast { done.wait(until: deadline) } }
        #expect(seen?.before == nil)
        #expect(seen?.after == "other")
        #expect(local.value == "main")
        local.value = nil
        #expect(local.value == nil)
    }
}
