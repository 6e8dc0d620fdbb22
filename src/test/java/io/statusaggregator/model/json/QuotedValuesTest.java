package io.statusaggregator.model.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

/**
 * What an object's bad value becomes in the message naming it: quoted cut short, nothing unprintable repeated. The
 * message goes into the cluster's status, its Events, the feeds and a log line: a Machine whose version held 600,000
 * characters made a status record over Kafka's 1 MiB, retried every second and never published.
 */
class QuotedValuesTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static String problemOf(ObjectNode object) {
        return assertThrows(MalformedObjectException.class, () -> ObjectDecoder.decode(object)).getMessage();
    }

    private static ObjectNode machine(String version) {
        ObjectNode machine = JSON.createObjectNode().put("apiVersion", "cluster.x-k8s.io/v1beta1").put("kind", "Machine");
        machine.putObject("metadata").put("namespace", "eksa-system").put("name", "m1").putObject("labels")
                .put(ObjectDecoder.CLUSTER_NAME_LABEL, "alpha");
        machine.putObject("spec").put("clusterName", "alpha").put("version", version);
        return machine;
    }

    @Test
    void aBadValueIsQuotedCutShortAndPrintable() {
        assertEquals("spec.version: not a Kubernetes version (like \"v1.27.4-eks-1-27-11\"): \"1.x\"", problemOf(machine("1.x")),
                "a short value as it is");

        String huge = problemOf(machine("1.x" + "9".repeat(600_000)));
        assertTrue(huge.length() < 200, () -> huge.length() + " characters: " + huge.substring(0, 200));
        assertTrue(huge.endsWith("\"..."), huge);

        String forged = problemOf(machine("1.x\n2026-11-28 01:00:00,000 ERROR [io.statusaggregator.Fake] (main) FORGED\u001b[31m"));
        assertFalse(forged.contains("\n") || forged.contains("\u001b"), forged);
        assertTrue(forged.contains("1.x\\u000a2026-11-28"), forged);

        ObjectNode wrongType = machine("v1.31.0");
        ((ObjectNode) wrongType.get("spec")).putArray("version");
        assertEquals("spec.version: expected a string, got a list", problemOf(wrongType));
    }
}
