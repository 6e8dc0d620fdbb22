package io.statusaggregator.model.json;

import static io.statusaggregator.model.json.StrictTokens.object;
import static io.statusaggregator.model.json.StrictTokens.text;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.EksaClusterSpec;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.StrictTokens.GiveUp;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Reads an EKS-A Cluster from its JSON bytes, as {@link ClusterMemberReader} reads the members: a fast path in front of
 * {@link ObjectDecoder}, never a second opinion. It answers only for a well-formed Cluster whose every field it reads
 * is valid, and then with what {@link ObjectDecoder#decode} gives ({@code EksaClusterReaderTest} holds the two to it);
 * on anything else it gives up (empty). Every status written comes back as such a record, so it is read often.
 * <p>
 * The status is read with the streaming parser, no tree. The spec is read only when its bytes are new: a spec whose
 * bytes are the ones the caller saw last for the Cluster (their SHA-256, {@link KnownSpec}) is that spec again, with
 * that hash (the record that echoes a status written has the spec of the record before it). A new spec is read from
 * its tokens ({@link ClusterSpecReader}), which write its canonical text for the version history's hash on the way
 * ({@link CanonicalJson}); only a spec that text cannot be written for exactly (a fraction in it, say) is hashed
 * through a tree.
 * Not thread-safe: one per reading thread.
 */
public final class EksaClusterReader {
    private static final ObjectMapper TREE = new ObjectMapper();
    /** Bits of {@link ObjectFields#once} for this reader's own fields. */
    private static final int SPEC = ObjectFields.FIRST_OWN_BIT, STATUS = SPEC << 1, ANNOTATIONS = SPEC << 2,
            RESOURCE_VERSION = SPEC << 3, CREATION_TIMESTAMP = SPEC << 4, UID = SPEC << 5;

    private final MessageDigest sha256;
    private final CanonicalJson canonical = new CanonicalJson();

    public EksaClusterReader() {
        try {
            sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    /**
     * A spec as read: the SHA-256 of its bytes (its first 128 bits: enough to tell two specs apart), what it says,
     * and its hash for the version history.
     */
    public record KnownSpec(long digestHigh, long digestLow, EksaClusterSpec spec, String hash) {
    }

    /** A Cluster read, and its spec to hand back for its next record. */
    public record Read(EksaCluster cluster, KnownSpec spec) {
    }

    /** What was read of one Cluster, in whatever order its fields came. */
    private static final class Fields extends ObjectFields {
        /** Where to write the spec's canonical text when reading it at once; null to skip it (a spec is known). */
        final CanonicalJson canonical;
        Map<String, String> annotations = Map.of();
        String resourceVersion = "";
        String creationTimestamp = "";
        String uid = "";
        int specStart = -1;
        int specEnd;
        EksaClusterSpec spec;
        ClusterStatus status = ClusterStatus.NONE;

        Fields(CanonicalJson canonical) {
            this.canonical = canonical;
        }

        @Override
        void metadataField(JsonParser parser, String field, JsonToken value) throws IOException, GiveUp {
            if (field.equals("annotations")) {
                once(ANNOTATIONS);
                if (object(value)) {
                    annotations = annotations(parser);
                }
            } else if (field.equals("resourceVersion")) {
                once(RESOURCE_VERSION);
                // Anything but a string (never from an API server) is no version: the write then has no precondition.
                resourceVersion = value == JsonToken.VALUE_STRING ? parser.getText() : "";
                parser.skipChildren();
            } else if (field.equals("creationTimestamp")) {
                once(CREATION_TIMESTAMP);
                creationTimestamp = value == JsonToken.VALUE_STRING ? parser.getText() : "";
                parser.skipChildren();
            } else if (field.equals("uid")) {
                once(UID);
                uid = value == JsonToken.VALUE_STRING ? parser.getText() : "";
                parser.skipChildren();
            } else {
                parser.skipChildren();
            }
        }

        @Override
        void bodyField(JsonParser parser, String field, JsonToken value) throws IOException, GiveUp {
            switch (field) {
                case "spec" -> {
                    once(SPEC);
                    if (value != JsonToken.START_OBJECT) {
                        throw GiveUp.INSTANCE; // no spec: the tree names what is missing
                    }
                    specStart = Math.toIntExact(parser.currentTokenLocation().getByteOffset());
                    if (canonical != null) {
                        spec = ClusterSpecReader.read(
                                canonical.recording(parser)); // read once, not skipped and read again
                    } else {
                        parser.skipChildren();
                    }
                    specEnd = Math.toIntExact(parser.currentTokenLocation().getByteOffset()) + 1;
                }
                case "status" -> {
                    once(STATUS);
                    if (object(value)) {
                        status = ClusterStatusReader.read(parser);
                    }
                }
                default -> parser.skipChildren();
            }
        }
    }

    /**
     * The Cluster, if {@code json} is one this reader reads whole; empty to leave it to {@link ObjectDecoder}.
     * {@code known} is the spec this Cluster's previous record had, if the caller kept it.
     */
    public Optional<Read> read(byte[] json, Optional<KnownSpec> known) {
        try (JsonParser parser = ObjectFields.parser(json)) {
            Fields fields = new Fields(known.isEmpty() ? canonical : null);
            return fields.read(parser) ? Optional.of(build(json, fields, known)) : Optional.empty();
        } catch (GiveUp | IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * The status of a status document (the status topic's values: a Cluster's identity and status, no spec), as
     * {@link ObjectDecoder#statusOf} reads it; empty to leave it to {@link ObjectDecoder}. A restarted instance reads
     * one per cluster before it starts.
     */
    public static Optional<ClusterStatus> statusOf(byte[] document) {
        try (JsonParser parser = ObjectFields.parser(document)) {
            Fields fields = new Fields(null);
            return fields.read(parser) ? Optional.of(fields.status) : Optional.empty();
        } catch (GiveUp | IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private Read build(byte[] json, Fields f, Optional<KnownSpec> known) throws GiveUp, IOException {
        if (f.apiVersion == null
                || f.kind == null
                || ObjectKind.of(f.apiVersion, f.kind).orElse(null) != ObjectKind.EKSA_CLUSTER
                || f.name == null
                || f.name.isEmpty()
                || f.specStart < 0) {
            throw GiveUp.INSTANCE;
        }
        KnownSpec spec = spec(json, f, known);
        ObjectKey key = new ObjectKey(f.namespace == null ? ObjectDecoder.DEFAULT_NAMESPACE : f.namespace, f.name);
        return new Read(
                new EksaCluster(
                        key,
                        f.apiVersion,
                        f.generation < 0 ? 1L : f.generation,
                        f.annotations,
                        spec.spec(),
                        spec.hash(),
                        f.status,
                        f.resourceVersion,
                        new EksaCluster.Creation(f.creationTimestamp, f.uid)),
                spec);
    }

    /**
     * The spec in {@code json[f.specStart, f.specEnd)}: the known one if its bytes are the same, else read through a
     * tree (read already if none was known).
     */
    private KnownSpec spec(byte[] json, Fields f, Optional<KnownSpec> known) throws GiveUp, IOException {
        sha256.update(json, f.specStart, f.specEnd - f.specStart);
        ByteBuffer digest = ByteBuffer.wrap(sha256.digest());
        long high = digest.getLong();
        long low = digest.getLong();
        if (known.isPresent() && known.get().digestHigh() == high && known.get().digestLow() == low) {
            return known.get();
        }
        EksaClusterSpec spec = f.spec;
        if (spec == null) {
            try (JsonParser parser = ObjectFields.parser(json, f.specStart, f.specEnd - f.specStart)) {
                parser.nextToken();
                spec = ClusterSpecReader.read(canonical.recording(parser));
            }
        }
        Optional<String> hash = canonical.hash();
        return new KnownSpec(high, low, spec, hash.isPresent() ? hash.get()
                : SpecHash.of(TREE.readTree(json, f.specStart, f.specEnd - f.specStart)));
    }

    /** Every annotation's value is a string (null reads as empty), as {@link ObjectDecoder} requires. */
    private static Map<String, String> annotations(JsonParser parser) throws IOException, GiveUp {
        Map<String, String> annotations = new HashMap<>();
        String name;
        while ((name = parser.nextFieldName()) != null) {
            String text = text(parser, parser.nextToken());
            annotations.put(name, text == null ? "" : text); // a repeated one: the last, as in the tree
        }
        return annotations;
    }
}
