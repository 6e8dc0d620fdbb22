package io.statusaggregator.cli;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

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

    static List<Document> read(InputStream in) throws IOException, NotYaml {
        YAMLMapper mapper = new YAMLMapper();
        List<Document> documents = new ArrayList<>();
        int index = 0;
        try (JsonParser parser = mapper.getFactory().createParser(in);
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
                    String where = e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ")";
                    throw new NotYaml("document " + index + ": not valid YAML" + where + ": " + firstLine(e.getOriginalMessage()));
                } catch (RuntimeException e) {
                    throw new NotYaml("document " + index + ": not valid YAML: " + firstLine(String.valueOf(e.getMessage())));
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

    private static String firstLine(String message) {
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
