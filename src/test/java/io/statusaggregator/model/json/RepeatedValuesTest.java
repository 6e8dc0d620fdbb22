package io.statusaggregator.model.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.statusaggregator.model.KubernetesVersion;
import io.statusaggregator.model.ObservedCondition;
import org.junit.jupiter.api.Test;

/** Values read before are shared; long ones are not kept, so what the tables hold stays small. */
class RepeatedValuesTest {
    private final RepeatedValues shared = new RepeatedValues();

    @Test
    void aConditionReadBeforeIsShared() {
        ObservedCondition first = new ObservedCondition("Ready", "False", "WaitingForMachines", "1 of 3 ready");
        assertSame(first, shared.condition(first));
        ObservedCondition again = new ObservedCondition("Ready", "False", "WaitingForMachines", "1 of 3 ready");
        assertSame(first, shared.condition(again));
        ObservedCondition other = new ObservedCondition("Ready", "True", "", "");
        assertSame(other, shared.condition(other), "a condition that differs is its own");
    }

    @Test
    void aConditionWithALongTextIsNotKept() {
        String message = "m".repeat(10_000);
        ObservedCondition first = new ObservedCondition("Ready", "False", "Failed", message);
        ObservedCondition again = new ObservedCondition("Ready", "False", "Failed", message);
        assertSame(first, shared.condition(first));
        assertNotSame(first, shared.condition(again), "not kept from the first time");
        assertSame(again, shared.condition(again));
    }

    @Test
    void versionsAreParsedAsTheModelParsesThem() {
        for (String text : new String[] {"v1.29.3-eks-1-29-5", "v1.29.3-eks-1-29-5", "1.28", "one", "v" + "1".repeat(200)}) {
            assertEquals(KubernetesVersion.parseMachine(text), shared.machineVersion(text), text);
        }
    }
}
