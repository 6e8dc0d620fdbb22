package io.statusaggregator.cli;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.statusaggregator.model.json.UnreadableJson;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * The documents of a multi-document YAML stream, each with the label error messages use ("document 3"). A
 * {@code kind: List} (what {@code kubectl get -o yaml} prints) is unwrapped into its items ("document 1, item 4").
 */
final class YamlDocuments {
    record Document(String label, JsonNode node) {
    }

    /** The stream is not YAML: which document failed and why. */
    static final class NotYaml extends Exception {
        NotYaml(String message) {
            super(message);
        }
    }

    private YamlDocuments() {
    }

    /** The most {@code compute} reads: far more than a fleet's objects, far less than would exhaust a default heap. */
    static final int MAX_INPUT = 64 << 20;
    /**
     * The longest line read. No Kubernetes object is over 1.5 MiB (etcd's limit), so no line of one is; and the YAML
     * parser takes time that grows with the square of a line's length, which this bounds.
     */
    static final int MAX_LINE = 2 << 20;

    static List<Document> read(InputStream in) throws IOException, NotYaml {
        byte[] input = bounded(in);
        LoaderOptions options = new LoaderOptions();
        // The parser's own limit (3 MiB per document) would refuse a kind: List of a fleet; the input is bounded above.
        options.setCodePointLimit(MAX_INPUT);
        YAMLMapper mapper = new YAMLMapper(YAMLFactory.builder().loaderOptions(options).build());
        List<Document> documents = new ArrayList<>();
        int index = 0;
        try (JsonParser parser = mapper.getFactory().createParser(input);
                MappingIterator<JsonNode> values = mapper.readValues(parser, JsonNode.class)) {
            while (true) {
                index++;
                JsonNode node;
                try {
                    if (!values.hasNextValue()) {
                        break;
                    }
                    node = values.nextValue();
                } catch (JsonProcessingException e) {
                    throw new NotYaml("document " + index + ": not valid YAML: " + problem(e));
                } catch (RuntimeException e) {
                    throw new NotYaml(
                            "document " + index + ": not valid YAML: " + firstLine(String.valueOf(e.getMessage())));
                }
                if (node == null || node.isNull() || node.isMissingNode()) {
                    continue; // an empty document, as between two "---"
                }
                String label = "document " + index;
                if (node.isObject() && node.path("kind").asText().endsWith("List") && node.path("items").isArray()) {
                    for (int i = 0; i < node.get("items").size(); i++) {
                        documents.add(new Document(label + ", item " + (i + 1), node.get("items").get(i)));
                    }
                } else {
                    documents.add(new Document(label, node));
                }
            }
        }
        return documents;
    }

    /**
     * The whole input, read in one pass that refuses it as soon as it is over {@link #MAX_INPUT} or a line is over
     * {@link #MAX_LINE}: in time that grows with its size, before the parser sees any of it.
     */
    private static byte[] bounded(InputStream in) throws IOException, NotYaml {
        ByteArrayOutputStream read = new ByteArrayOutputStream();
        byte[] buffer = new byte[64 * 1024];
        int line = 1;
        int lineLength = 0;
        int n;
        while ((n = in.read(buffer)) >= 0) {
            if (read.size() + n > MAX_INPUT) {
                throw new NotYaml("the input is over " + (MAX_INPUT >> 20)
                        + " MiB, more than compute reads; split it by cluster");
            }
            for (int i = 0; i < n; i++) {
                if (buffer[i] == '\n') {
                    line++;
                    lineLength = 0;
                } else if (++lineLength > MAX_LINE) {
                    throw new NotYaml("line " + line + " is over " + (MAX_LINE >> 20)
                            + " MiB, longer than any Kubernetes object");
                }
            }
            read.write(buffer, 0, n);
        }
        return read.toByteArray();
    }

    /**
     * What is wrong, and where: the YAML parser's own statement of the problem (one line, in plain words) at its mark;
     * anything else, as for JSON.
     */
    private static String problem(JsonProcessingException e) {
        if (e.getCause() instanceof MarkedYAMLException marked && marked.getProblem() != null
                && marked.getProblemMark() != null) {
            return firstLine(marked.getProblem()) + " at line " + (marked.getProblemMark().getLine() + 1) + ", column "
                    + (marked.getProblemMark().getColumn() + 1);
        }
        return UnreadableJson.problem(e);
    }

    /** The message's first line, without the exception class a parser puts before it: what a user can act on. */
    private static String firstLine(String message) {
        int newline = message.indexOf('\n');
        String line = newline < 0 ? message : message.substring(0, newline);
        if (line.startsWith("java.io.CharConversionException: ")) {
            return "not UTF-8 text: " + line.substring("java.io.CharConversionException: ".length());
        }
        return line.replaceFirst("^(?:[a-z][\\w$]*\\.)+[A-Z][\\w$]*(?:Exception|Error): ", "");
    }
}
