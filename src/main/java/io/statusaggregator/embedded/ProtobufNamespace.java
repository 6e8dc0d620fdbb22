package io.statusaggregator.embedded;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A Namespace in Kubernetes' protobuf encoding, read into its JSON: what {@code kubectl create namespace} sends
 * (kubectl sends the built-in kinds as {@code application/vnd.kubernetes.protobuf}, which the mock server cannot
 * read, so it never answered). Only what a create can carry that the embedded API keeps is read: the name, the
 * generated name's prefix, labels and annotations. The encoding: the bytes {@code k8s\0}, then a
 * {@code runtime.Unknown} (1: TypeMeta with 1: apiVersion, 2: kind; 2: the object's bytes), the Namespace's
 * (1: ObjectMeta with 1: name, 2: generateName, 11: labels, 12: annotations, each entry 1: key, 2: value).
 */
final class ProtobufNamespace {
    static final String MEDIA_TYPE = "application/vnd.kubernetes.protobuf";
    private static final byte[] MAGIC = {'k', '8', 's', 0};

    private ProtobufNamespace() {
    }

    /** The Namespace's JSON; empty when {@code body} is not a v1 Namespace in this encoding. */
    static Optional<ObjectNode> read(byte[] body) {
        if (body.length < MAGIC.length || !Arrays.equals(Arrays.copyOf(body, MAGIC.length), MAGIC)) {
            return Optional.empty();
        }
        try {
            Message unknown = new Message(Arrays.copyOfRange(body, MAGIC.length, body.length));
            Message typeMeta = new Message(unknown.bytes(1));
            if (!typeMeta.text(1).equals("v1") || !typeMeta.text(2).equals("Namespace")) {
                return Optional.empty();
            }
            Message metadata = new Message(new Message(unknown.bytes(2)).bytes(1));
            ObjectNode namespace = JsonNodeFactory.instance.objectNode().put("apiVersion", "v1")
                    .put("kind", "Namespace");
            ObjectNode meta = namespace.putObject("metadata");
            putIfSet(meta, "name", metadata.text(1));
            putIfSet(meta, "generateName", metadata.text(2));
            entries(metadata, 11, meta, "labels");
            entries(metadata, 12, meta, "annotations");
            return Optional.of(namespace);
        } catch (IllegalArgumentException malformed) {
            return Optional.empty();
        }
    }

    private static void putIfSet(ObjectNode object, String field, String value) {
        if (!value.isEmpty()) {
            object.put(field, value);
        }
    }

    private static void entries(Message metadata, int field, ObjectNode meta, String name) {
        ObjectNode map = null;
        for (byte[] entry : metadata.all(field)) {
            Message pair = new Message(entry);
            map = map == null ? meta.putObject(name) : map;
            map.put(pair.text(1), pair.text(2));
        }
    }

    /** One protobuf message's fields, read on demand; a field absent reads as empty, as protobuf defines. */
    private static final class Message {
        private final byte[] bytes;

        Message(byte[] bytes) {
            this.bytes = bytes;
        }

        String text(int field) {
            return new String(bytes(field), StandardCharsets.UTF_8);
        }

        /** The last occurrence of a length-delimited field, as protobuf merges a repeated singular field. */
        byte[] bytes(int field) {
            byte[][] all = all(field);
            return all.length == 0 ? new byte[0] : all[all.length - 1];
        }

        /** Every occurrence of a length-delimited field, in order; other wire types are skipped. */
        byte[][] all(int field) {
            List<byte[]> found = new ArrayList<>();
            int[] at = {0};
            while (at[0] < bytes.length) {
                long key = varint(at);
                int wireType = (int) (key & 7);
                long number = key >>> 3;
                switch (wireType) {
                    case 0 -> varint(at);
                    case 1 -> skip(at, 8);
                    case 5 -> skip(at, 4);
                    case 2 -> {
                        long length = varint(at);
                        if (length < 0 || length > bytes.length - at[0]) {
                            throw new IllegalArgumentException("a field runs past the message");
                        }
                        if (number == field) {
                            found.add(Arrays.copyOfRange(bytes, at[0], at[0] + (int) length));
                        }
                        at[0] += (int) length;
                    }
                    default -> throw new IllegalArgumentException("wire type " + wireType);
                }
            }
            return found.toArray(new byte[0][]);
        }

        private long varint(int[] at) {
            long value = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (at[0] >= bytes.length) {
                    throw new IllegalArgumentException("a number runs past the message");
                }
                byte b = bytes[at[0]++];
                value |= (long) (b & 0x7f) << shift;
                if ((b & 0x80) == 0) {
                    return value;
                }
            }
            throw new IllegalArgumentException("a number of more than ten bytes");
        }

        private void skip(int[] at, int length) {
            if (length > bytes.length - at[0]) {
                throw new IllegalArgumentException("a field runs past the message");
            }
            at[0] += length;
        }
    }
}
