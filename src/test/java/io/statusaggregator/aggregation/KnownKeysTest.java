package io.statusaggregator.aggregation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.statusaggregator.ingest.ObjectStateKey;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The keys held are found from their bytes, exactly: never another key's, never one forgotten. */
class KnownKeysTest {
    private final KnownKeys known = new KnownKeys();

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static ObjectStateKey key(String encoded) {
        return ObjectStateKey.parse(encoded).orElseThrow();
    }

    @Test
    void findsAHeldKeyFromItsBytesAndNothingElse() {
        ObjectStateKey machine = key("alpha/Machine.cluster.x-k8s.io/eksa-system/alpha-md-0-x7k2p");
        known.hold(machine);
        assertSame(machine, known.find(bytes(machine.encode())), "the held instance");
        for (String other : List.of(
                "alpha/Machine.cluster.x-k8s.io/eksa-system/alpha-md-0-x7k2",      // a prefix of the name
                "alpha/Machine.cluster.x-k8s.io/eksa-system/alpha-md-0-x7k2pq",    // longer
                "alpha/Machine.cluster.x-k8s.io/eksa-systen/alpha-md-0-x7k2p",     // another namespace
                "alpha/MachineDeployment.cluster.x-k8s.io/eksa-system/alpha-md-0-x7k2p",
                "alphb/Machine.cluster.x-k8s.io/eksa-system/alpha-md-0-x7k2p",
                "alpha/Machine.cluster.x-k8s.io/eksa-system/alpha-md-0-x7k2p/",    // a slash more
                "alpha/Machine.cluster.x-k8s.io/eksa-system",
                "")) {
            assertNull(known.find(bytes(other)), other);
        }
        byte[] notAscii = bytes(machine.encode());
        notAscii[notAscii.length - 1] = (byte) 0xf0;
        assertNull(known.find(notAscii));
        assertNull(known.find(null));
    }

    @Test
    void keepsExactlyTheKeysHeldThroughGrowthAndForgetting() {
        Random random = new Random(20261127);
        List<ObjectStateKey> keys = new ArrayList<>();
        for (int i = 0; i < 6_000; i++) {
            ObjectKind kind = ObjectKind.values()[random.nextInt(ObjectKind.values().length)];
            keys.add(new ObjectStateKey("c" + random.nextInt(300), kind, new ObjectKey("eksa-system", "o-" + random.nextInt(4_000))));
        }
        Map<ObjectStateKey, ObjectStateKey> held = new HashMap<>(); // what the table must hold, by value
        for (int step = 0; step < 200_000; step++) {
            ObjectStateKey key = keys.get(random.nextInt(keys.size()));
            switch (random.nextInt(10)) {
                case 0, 1, 2 -> {
                    known.hold(key);
                    held.put(key, key);
                }
                case 3, 4 -> {
                    known.forget(key);
                    held.remove(key);
                }
                default -> {
                }
            }
            if (step % 50_000 == 49_999) {
                known.clear();
                held.clear();
            }
            ObjectStateKey found = known.find(bytes(key.encode()));
            assertSame(held.get(key), found, "step " + step + ", " + key.encode());
            assertEquals(held.size(), known.size(), "step " + step);
        }
        for (ObjectStateKey key : keys) {
            assertSame(held.get(key), known.find(bytes(key.encode())), key.encode());
        }
    }
}
