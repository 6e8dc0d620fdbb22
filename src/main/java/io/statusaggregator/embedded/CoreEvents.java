package io.statusaggregator.embedded;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.http.MockResponse;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code v1} Events of the embedded API, as a real API server serves them: one store of Events, read in either
 * shape. A real server converts an Event written as {@code events.k8s.io/v1} (what the aggregator's EventRecorder
 * writes) to {@code v1} for a reader of {@code /api/v1/.../events}, which is where {@code kubectl describe} and
 * {@code kubectl events} look; Fabric8's mock server keeps the two apart, so there they found none. Here a GET of
 * {@code /api/v1[/namespaces/NS]/events[/NAME]} answers with the Events stored under either API, converted as
 * Kubernetes converts them ({@link #toCore}), filtered by the field selector as a real server filters
 * ({@link FieldSelector}; the mock server matches only name and namespace). Watches of {@code v1} Events are not
 * joined: they stay Fabric8's (its own {@code v1} Events only).
 */
final class CoreEvents {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String EVENTS_V1 = "/apis/events.k8s.io/v1";
    /** {@code /api/v1/events}, {@code /api/v1/namespaces/NS/events}, {@code /api/v1/namespaces/NS/events/NAME}. */
    private static final Pattern CORE_PATH = Pattern.compile("/api/v1(/namespaces/([^/]+))?/events(?:/([^/]+))?");

    private CoreEvents() {
    }

    /**
     * The answer to a GET of {@code path} (with its query) where it reads {@code v1} Events; empty for any other path.
     *
     * @param stored Fabric8's answer to a GET of a path (no query): the Events it stores under that API
     */
    static Optional<MockResponse> answer(String path, Function<String, MockResponse> stored) {
        int query = path.indexOf('?');
        Matcher events = CORE_PATH.matcher(query < 0 ? path : path.substring(0, query));
        if (!events.matches() || events.group(2) == null && events.group(3) != null) {
            return Optional.empty();
        }
        String namespaces = Optional.ofNullable(events.group(1)).orElse("");
        String name = events.group(3);
        FieldSelector selector;
        try {
            selector = FieldSelector.parse(parameter(query < 0 ? "" : path.substring(query + 1), "fieldSelector"));
        } catch (IllegalArgumentException e) {
            return Optional.of(status(400, "BadRequest", e.getMessage()));
        }
        List<JsonNode> found = new ArrayList<>();
        long resourceVersion = 0;
        for (String api : List.of(EVENTS_V1, "/api/v1")) {
            JsonNode list = body(stored.apply(api + namespaces + "/events"));
            resourceVersion = Math.max(resourceVersion, list.path("metadata").path("resourceVersion").asLong(0));
            for (JsonNode event : list.path("items")) {
                boolean written = "events.k8s.io/v1".equals(event.path("apiVersion").asText());
                if (written != api.equals(EVENTS_V1)) {
                    continue; // Fabric8 answers a v1 list with the events.k8s.io ones too, as they are: those are
                              // converted
                }
                JsonNode core = written ? toCore(event) : event;
                if ((name == null
                                || name.equals(
                                        core.path("metadata").path("name").asText()))
                        && selector.matches(core)) {
                    found.add(core);
                }
            }
        }
        if (name != null) {
            return Optional.of(found.isEmpty() ? status(404, "NotFound", "events \"" + name + "\" not found")
                    : json(200, found.get(0)));
        }
        ObjectNode list = JSON.createObjectNode().put("kind", "EventList").put("apiVersion", "v1");
        list.putObject("metadata").put("resourceVersion", Long.toString(resourceVersion));
        list.putArray("items").addAll(found);
        return Optional.of(json(200, list));
    }

    /**
     * An {@code events.k8s.io/v1} Event as {@code v1}, field by field as Kubernetes converts it
     * ({@code Convert_v1_Event_To_core_Event}): {@code regarding} is {@code involvedObject}, {@code note} the
     * {@code message}, {@code reportingController} {@code reportingComponent}; {@code source}, {@code count},
     * {@code firstTimestamp} and {@code lastTimestamp} are the {@code deprecated} fields, empty where the writer left
     * them so (kubectl then reads {@code eventTime}, {@code series} and {@code reportingComponent}); the rest as is.
     */
    static ObjectNode toCore(JsonNode event) {
        ObjectNode core = JSON.createObjectNode().put("kind", "Event").put("apiVersion", "v1");
        core.set(
                "metadata",
                event.path("metadata").isObject() ? event.get("metadata").deepCopy() : JSON.createObjectNode());
        core.set(
                "involvedObject",
                event.path("regarding").isObject() ? event.get("regarding").deepCopy() : JSON.createObjectNode());
        copy(event, "reason", core, "reason");
        copy(event, "note", core, "message");
        core.set(
                "source",
                event.path("deprecatedSource").isObject()
                        ? event.get("deprecatedSource").deepCopy()
                        : JSON.createObjectNode());
        core.set(
                "firstTimestamp",
                event.path("deprecatedFirstTimestamp").isMissingNode()
                        ? JSON.nullNode()
                        : event.get("deprecatedFirstTimestamp"));
        core.set(
                "lastTimestamp",
                event.path("deprecatedLastTimestamp").isMissingNode()
                        ? JSON.nullNode()
                        : event.get("deprecatedLastTimestamp"));
        if (event.path("deprecatedCount").asInt(0) != 0) {
            core.put("count", event.get("deprecatedCount").asInt());
        }
        copy(event, "type", core, "type");
        core.set("eventTime", event.path("eventTime").isMissingNode() ? JSON.nullNode() : event.get("eventTime"));
        copy(event, "series", core, "series");
        copy(event, "action", core, "action");
        copy(event, "related", core, "related");
        core.put("reportingComponent", event.path("reportingController").asText(""));
        core.put("reportingInstance", event.path("reportingInstance").asText(""));
        return core;
    }

    private static void copy(JsonNode from, String field, ObjectNode to, String as) {
        JsonNode value = from.get(field);
        if (value != null && !value.isNull()) {
            to.set(as, value.deepCopy());
        }
    }

    /**
     * A field selector on {@code v1} Events, as a real API server takes one: terms {@code field=value},
     * {@code field==value} or {@code field!=value} joined by commas (a backslash escapes {@code , = !} and itself),
     * each on one of the fields a real server selects Events by; another field is refused, as there.
     */
    record FieldSelector(List<Term> terms) {
        record Term(String field, String value, boolean equal) {
        }

        /**
         * The fields, and where a {@code v1} Event has each ({@code source}: its component, else its
         * reportingComponent).
         */
        private static final Map<String, Function<JsonNode, String>> FIELDS = Map.ofEntries(
                Map.entry("metadata.name", e -> e.path("metadata").path("name").asText("")),
                Map.entry(
                        "metadata.namespace",
                        e -> e.path("metadata").path("namespace").asText("")),
                Map.entry(
                        "involvedObject.kind",
                        e -> e.path("involvedObject").path("kind").asText("")),
                Map.entry(
                        "involvedObject.namespace",
                        e -> e.path("involvedObject").path("namespace").asText("")),
                Map.entry(
                        "involvedObject.name",
                        e -> e.path("involvedObject").path("name").asText("")),
                Map.entry(
                        "involvedObject.uid",
                        e -> e.path("involvedObject").path("uid").asText("")),
                Map.entry(
                        "involvedObject.apiVersion",
                        e -> e.path("involvedObject").path("apiVersion").asText("")),
                Map.entry(
                        "involvedObject.resourceVersion",
                        e -> e.path("involvedObject").path("resourceVersion").asText("")),
                Map.entry(
                        "involvedObject.fieldPath",
                        e -> e.path("involvedObject").path("fieldPath").asText("")),
                Map.entry("reason", e -> e.path("reason").asText("")),
                Map.entry(
                        "reportingComponent", e -> e.path("reportingComponent").asText("")),
                Map.entry("source", e -> Optional.of(
                                e.path("source").path("component").asText(""))
                        .filter(c -> !c.isEmpty())
                        .orElse(e.path("reportingComponent").asText(""))),
                Map.entry("type", e -> e.path("type").asText("")));

        /** @param selector the {@code fieldSelector} parameter, decoded; null or blank selects every Event */
        static FieldSelector parse(String selector) {
            List<Term> terms = new ArrayList<>();
            if (selector == null || selector.isBlank()) {
                return new FieldSelector(terms);
            }
            for (String term : split(selector, ',')) {
                int at = operator(term);
                if (at < 0) {
                    throw new IllegalArgumentException(
                            "invalid selector: '" + selector + "'; can't understand '" + term + "'");
                }
                boolean equal = term.charAt(at) == '=';
                int valueAt = at + (equal && term.startsWith("==", at) || !equal ? 2 : 1);
                String field = unescape(term.substring(0, at)).strip();
                if (!FIELDS.containsKey(field)) {
                    throw new IllegalArgumentException("field label not supported: " + field);
                }
                terms.add(new Term(field, unescape(term.substring(valueAt)), equal));
            }
            return new FieldSelector(List.copyOf(terms));
        }

        boolean matches(JsonNode coreEvent) {
            return terms.stream().allMatch(t -> FIELDS.get(t.field()).apply(coreEvent).equals(t.value()) == t.equal());
        }

        /** Where the term's unescaped operator ({@code =}, {@code ==} or {@code !=}) starts; -1 for none. */
        private static int operator(String term) {
            for (int i = 0; i < term.length(); i++) {
                char c = term.charAt(i);
                if (c == '\\') {
                    i++;
                } else if (c == '=' || c == '!' && term.startsWith("!=", i)) {
                    return i;
                }
            }
            return -1;
        }

        private static List<String> split(String selector, char separator) {
            List<String> parts = new ArrayList<>();
            StringBuilder part = new StringBuilder();
            for (int i = 0; i < selector.length(); i++) {
                char c = selector.charAt(i);
                if (c == '\\' && i + 1 < selector.length()) {
                    part.append(c).append(selector.charAt(++i));
                } else if (c == separator) {
                    parts.add(part.toString());
                    part.setLength(0);
                } else {
                    part.append(c);
                }
            }
            parts.add(part.toString());
            return parts;
        }

        private static String unescape(String text) {
            return text.replaceAll("\\\\(.)", "$1");
        }
    }

    /** The first value of a parameter of a URL's query, decoded; null where there is none. */
    static String parameter(String query, String name) {
        for (String pair : query.split("&")) {
            int equals = pair.indexOf('=');
            String key = URLDecoder.decode(equals < 0 ? pair : pair.substring(0, equals), StandardCharsets.UTF_8);
            if (key.equals(name)) {
                return equals < 0 ? "" : URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8);
            }
        }
        return null;
    }

    private static JsonNode body(MockResponse response) {
        if (response == null || response.code() != 200 || response.getBody() == null) {
            return JSON.createObjectNode();
        }
        try {
            return JSON.readTree(response.getBody().getBytes());
        } catch (IOException e) {
            return JSON.createObjectNode();
        }
    }

    private static MockResponse json(int code, JsonNode body) {
        return new MockResponse()
                .setResponseCode(code)
                .setHeader("Content-Type", "application/json")
                .setBody(body.toString());
    }

    private static MockResponse status(int code, String reason, String message) {
        ObjectNode status = JSON.createObjectNode()
                .put("kind", "Status")
                .put("apiVersion", "v1")
                .put("status", "Failure")
                .put("message", message)
                .put("reason", reason)
                .put("code", code);
        status.putObject("metadata");
        return json(code, status);
    }
}
