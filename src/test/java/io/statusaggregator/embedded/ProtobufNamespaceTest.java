package io.statusaggregator.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A Namespace in Kubernetes' protobuf encoding, as kubectl sends it, read into its JSON. */
class ProtobufNamespaceTest {
    /** What kubectl 1.32 sends for {@code kubectl create namespace team-b} (its -v=8 log). */
    private static final byte[] KUBECTL_CREATE = HexFormat.of().parseHex(
            "6b3873000a0f0a02763112094e616d657370616365121e0a160a067465616d2d6212001a0022002a0032003800420012001a020a001a002200");

    @Test
    void whatKubectlSendsIsReadIntoTheNamespacesJson() {
        assertEquals("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"team-b\"}}",
                ProtobufNamespace.read(KUBECTL_CREATE).orElseThrow().toString());
    }

    @Test
    void labelsAndAnnotationsAreRead() {
        byte[] metadata = concat(field(1, text("team-c")), field(11, concat(field(1, text("team")), field(2, text("c")))),
                field(12, concat(field(1, text("note")), field(2, text("ours")))), new byte[] {0x38, 0x05});
        byte[] namespace = field(1, metadata);
        byte[] typeMeta = concat(field(1, text("v1")), field(2, text("Namespace")));
        byte[] body = concat("k8s\0".getBytes(StandardCharsets.ISO_8859_1), field(1, typeMeta), field(2, namespace));
        assertEquals("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"team-c\",\"labels\":{\"team\":\"c\"},"
                + "\"annotations\":{\"note\":\"ours\"}}}", ProtobufNamespace.read(body).orElseThrow().toString());
    }

    @Test
    void anotherKindOrBytesThatAreNoMessageAreNotANamespace() {
        byte[] typeMeta = concat(field(1, text("v1")), field(2, text("ConfigMap")));
        assertEquals(Optional.empty(), ProtobufNamespace.read(concat("k8s\0".getBytes(StandardCharsets.ISO_8859_1), field(1, typeMeta))));
        assertEquals(Optional.empty(), ProtobufNamespace.read("{\"kind\":\"Namespace\"}".getBytes(StandardCharsets.UTF_8)));
        byte[] truncated = java.util.Arrays.copyOf(KUBECTL_CREATE, 20);
        assertEquals(Optional.empty(), ProtobufNamespace.read(truncated));
    }

    private static byte[] text(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] field(int number, byte[] value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(number << 3 | 2);
        out.write(value.length); // every value here is under 128 bytes: one byte of length
        out.writeBytes(value);
        return out.toByteArray();
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }
}
