package io.statusaggregator.embedded;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.http.MockResponse;
import java.io.IOException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A failure's Status, as a real API server answers it: kubectl prints its message, where the mock server's bare
 * status code would leave it to say only that something failed.
 */
final class FailureStatus {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** {@code /api/v1[/namespaces/NS]/PLURAL/NAME} or {@code /apis/GROUP/VERSION[/namespaces/NS]/PLURAL/NAME}. */
    private static final Pattern OBJECT_PATH =
            Pattern.compile("/(?:api/v1|apis/([^/]+)/[^/]+)(?:/namespaces/[^/]+)?/([^/]+)/([^/]+)");

    /** {@code /api/v1[/namespaces/NS]/PLURAL} or {@code /apis/GROUP/VERSION[/namespaces/NS]/PLURAL}. */
    private static final Pattern COLLECTION_PATH =
            Pattern.compile("/(?:api/v1|apis/([^/]+)/[^/]+)(?:/namespaces/[^/]+)?/([^/]+)");

    private FailureStatus() {
    }

    /** The answer carrying the Status of a failure. */
    static MockResponse answer(int code, String reason, String message) {
        return answer(statusOf(code, reason, message));
    }

    /**
     * The Status a real API server answers a GET of an object it does not hold with: kubectl prints its message
     * ({@code Error from server (NotFound): clusters.anywhere.eks.amazonaws.com "bravo" not found}); without it,
     * kubectl could only say that the server found no such resource at all.
     */
    static Optional<MockResponse> notFound(String path) {
        Matcher object = OBJECT_PATH.matcher(path);
        return object.matches() ? Optional.of(objectStatus(404, "NotFound", object.group(1), object.group(2),
                object.group(3), "not found")) : Optional.empty();
    }

    /**
     * The Status a real API server answers a create of an object it already holds with, which kubectl prints
     * ({@code Error from server (AlreadyExists): namespaces "team-b" already exists}); Fabric8's 409 carries none.
     */
    static MockResponse alreadyExists(String path, byte[] body, MockResponse answer) {
        Matcher collection = COLLECTION_PATH.matcher(path);
        String name;
        try {
            name = JSON.readTree(body).path("metadata").path("name").asText("");
        } catch (IOException e) {
            return answer;
        }
        return collection.matches() && !name.isEmpty() ? objectStatus(409, "AlreadyExists", collection.group(1),
                collection.group(2), name, "already exists") : answer;
    }

    private static MockResponse objectStatus(int code, String reason, String groupOrNull, String plural, String name,
            String what) {
        String group = Optional.ofNullable(groupOrNull).orElse("");
        String resource = group.isEmpty() ? plural : plural + "." + group;
        ObjectNode status = statusOf(code, reason, resource + " \"" + name + "\" " + what);
        status.putObject("details").put("name", name).put("group", group).put("kind", plural);
        return answer(status);
    }

    private static ObjectNode statusOf(int code, String reason, String message) {
        ObjectNode status = JSON.createObjectNode().put("kind", "Status").put("apiVersion", "v1")
                .put("status", "Failure").put("message", message).put("reason", reason).put("code", code);
        status.putObject("metadata");
        return status;
    }

    private static MockResponse answer(ObjectNode status) {
        return new MockResponse().setResponseCode(status.path("code").asInt())
                .setHeader("Content-Type", "application/json").setBody(status.toString());
    }
}
