package io.statusaggregator.writeback;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The chain of this writer's own versions of a Cluster, and the precondition it gives each write. */
class OwnVersionsTest {
    private final OwnVersions own = new OwnVersions();

    @Test
    void beforeAnyWriteTheBasisIsThePrecondition() {
        assertEquals("41", own.expected("41"));
        assertEquals("", own.expected(""), "no basis, no condition");
    }

    @Test
    void aBasisTheOwnWritesLedOnFromGivesTheVersionTheLastMade() {
        own.wrote("41", "42");
        own.wrote("42", "43");
        assertEquals("43", own.expected("41"));
        assertEquals("43", own.expected("42"));
        assertEquals("43", own.expected("43"));
        assertEquals("45", own.expected("45"), "another writer's version is its own condition");
        assertEquals("", own.expected(""), "no basis, no condition");
    }

    @Test
    void aWriteOnConditionOfAnotherWritersVersionStartsTheChainAgain() {
        own.wrote("41", "42");
        own.wrote("45", "46");
        assertEquals("41", own.expected("41"), "before the other writer: not ours any more");
        assertEquals("46", own.expected("45"));
    }

    @Test
    void anAnswerWithoutAVersionBreaksTheChain() {
        own.wrote("41", "42");
        own.wrote("42", "");
        assertEquals("41", own.expected("41"));
        assertEquals("42", own.expected("42"));
    }

    @Test
    void anUnconditionalWriteChainsFromItsOwnVersionOnly() {
        own.wrote("", "42");
        assertEquals("42", own.expected("42"));
        assertEquals("", own.expected(""));
    }

    @Test
    void aChainLongerThanItsLimitKeepsTheNewestOnly() {
        own.wrote("100", "101");
        for (int v = 101; v < 100 + OwnVersions.KEPT + 2; v++) {
            own.wrote(String.valueOf(v), String.valueOf(v + 1));
        }
        String last = String.valueOf(100 + OwnVersions.KEPT + 2);
        assertEquals("100", own.expected("100"), "the oldest is dropped");
        assertEquals(last, own.expected(String.valueOf(100 + OwnVersions.KEPT + 1)));
    }
}
