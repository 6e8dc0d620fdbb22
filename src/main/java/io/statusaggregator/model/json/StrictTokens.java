package io.statusaggregator.model.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * One value of a streaming parser, taken only where {@link JsonFields} would take it from the tree; anything else
 * gives up ({@link GiveUp}), leaving the whole object to {@link ObjectDecoder}, which names what is wrong. Shared by
 * the streaming readers ({@link ClusterMemberReader}, {@link EksaClusterReader}).
 */
final class StrictTokens {
    private StrictTokens() {
    }

    /** Gives up: the object is left to {@link ObjectDecoder}. Thrown without a stack trace; it is not an error. */
    static final class GiveUp extends Exception {
        static final GiveUp INSTANCE = new GiveUp();

        private GiveUp() {
            super(null, null, false, false);
        }
    }

    /** A string, or null for an explicit null; anything else gives up. */
    static String text(JsonParser parser, JsonToken value) throws IOException, GiveUp {
        if (value == JsonToken.VALUE_STRING) {
            return parser.getText();
        }
        if (value == JsonToken.VALUE_NULL) {
            return null;
        }
        throw GiveUp.INSTANCE;
    }

    /** Whether the value is an object to read (false for null); anything else gives up. */
    static boolean object(JsonToken value) throws GiveUp {
        if (value == JsonToken.START_OBJECT) {
            return true;
        }
        if (value == JsonToken.VALUE_NULL) {
            return false;
        }
        throw GiveUp.INSTANCE;
    }

    /** Whether the value is a list to read (false for null); anything else gives up. */
    static boolean array(JsonToken value) throws GiveUp {
        if (value == JsonToken.START_ARRAY) {
            return true;
        }
        if (value == JsonToken.VALUE_NULL) {
            return false;
        }
        throw GiveUp.INSTANCE;
    }

    /** The next item of a list of objects: true for an object, false at the list's end; anything else gives up. */
    static boolean nextObject(JsonParser parser) throws IOException, GiveUp {
        return objectItem(parser.nextToken());
    }

    /** A list of objects' item token: true for an object, false for the list's end; anything else gives up. */
    static boolean objectItem(JsonToken item) throws GiveUp {
        if (item == JsonToken.END_ARRAY) {
            return false;
        }
        if (item != JsonToken.START_OBJECT) {
            throw GiveUp.INSTANCE;
        }
        return true;
    }

    static boolean bool(JsonToken value) throws GiveUp {
        return switch (value) {
            case VALUE_TRUE -> true;
            case VALUE_FALSE, VALUE_NULL -> false;
            default -> throw GiveUp.INSTANCE;
        };
    }

    /** A count: a whole number in an int, not negative; null is 0. */
    static int count(JsonParser parser, JsonToken value) throws IOException, GiveUp {
        if (value == JsonToken.VALUE_NULL) {
            return 0;
        }
        if (value != JsonToken.VALUE_NUMBER_INT
                || parser.getNumberType() != JsonParser.NumberType.INT
                || parser.getIntValue() < 0) {
            throw GiveUp.INSTANCE;
        }
        return parser.getIntValue();
    }

    /** A generation: a whole number in a long, not negative; -1 for null. */
    static long generation(JsonParser parser, JsonToken value) throws IOException, GiveUp {
        if (value == JsonToken.VALUE_NULL) {
            return -1;
        }
        if (value != JsonToken.VALUE_NUMBER_INT || parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                || parser.getLongValue() < 0) {
            throw GiveUp.INSTANCE;
        }
        return parser.getLongValue();
    }
}
