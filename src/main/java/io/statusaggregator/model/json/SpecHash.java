package io.statusaggregator.model.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * The hash of a Cluster spec in the version history (versions.md, 003): base64url without padding of the SHA-1 of
 * the spec's canonical JSON: exactly the fields it holds, object keys sorted, no whitespace, strings escaped as JSON
 * escapes them, non-ASCII left as UTF-8.
 */
public final class SpecHash {
    private static final ObjectWriter SORTED = JsonMapper.builder()
            .enable(JsonNodeFeature.WRITE_PROPERTIES_SORTED)
            .build()
            .writer();

    private SpecHash() {
    }

    public static String of(JsonNode spec) {
        return base64urlSha1(canonical(spec));
    }

    /** base64url (no padding) of the SHA-1 of the text's UTF-8 bytes. */
    public static String base64urlSha1(String text) {
        try {
            byte[] sha1 = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(sha1);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-1", e);
        }
    }

    /**
     * The canonical JSON text: Jackson writes no whitespace and leaves non-ASCII unescaped by default, and sorts each
     * object's keys as it writes them (no sorted copy of the tree: this runs for every status change published).
     */
    public static String canonical(JsonNode spec) {
        try {
            return SORTED.writeValueAsString(spec);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
