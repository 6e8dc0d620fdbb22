package io.statusaggregator.model.json;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import io.statusaggregator.model.KubernetesNames;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What is wrong with text the JSON (or YAML) reader refused, in one line of this project's words, with the line and
 * column where it is: the reader's own messages name its classes and settings, which tell a user nothing to act on.
 * Every place that reads outside text as JSON says what is wrong with it through {@link #problem}.
 */
public final class UnreadableJson {
    private static final Pattern LIMIT = Pattern.compile(
            "^(Document nesting depth|Number value length|String value length|Name length|Document length|Token count)"
                    + " \\((\\d+)\\) exceeds the maximum allowed \\((\\d+)");
    private static final Pattern CHARACTER = Pattern.compile("^Unexpected character \\('.*?' \\(code (\\d+)\\)\\)");
    private static final Pattern CLOSE = Pattern.compile("^Unexpected close marker '(.)'");
    private static final Pattern WORD = Pattern.compile("^(?:Unrecognized|Non-standard) token '(.*?)'", Pattern.DOTALL);
    private static final Pattern CONTROL =
            Pattern.compile("^Illegal unquoted character \\(\\(CTRL-CHAR, code (\\d+)\\)\\)");
    private static final Pattern ESCAPE = Pattern.compile("^Unrecognized character escape '.*?' \\(code (\\d+)\\)");

    private UnreadableJson() {
    }

    /** Why the reader refused the text, and where when it knows: "unexpected character ']' at line 3, column 7". */
    public static String problem(JsonProcessingException e) {
        String message = String.valueOf(e.getOriginalMessage());
        if (e instanceof StreamConstraintsException) {
            return overLimit(message); // no location: the reader does not keep one for these
        }
        return what(e, message) + where(e.getLocation());
    }

    private static String overLimit(String message) {
        Matcher limit = LIMIT.matcher(message);
        if (!limit.find()) {
            return "over a limit of what is read";
        }
        String found = limit.group(2);
        String max = limit.group(3);
        return switch (limit.group(1)) {
            case "Document nesting depth" -> "nested more than " + max + " levels deep";
            case "Number value length" -> "a number of " + found + " digits, more than the " + max + " read";
            case "String value length" -> "a string of " + found + " characters, more than the " + max + " read";
            case "Name length" -> "a field name of " + found + " characters, more than the " + max + " read";
            case "Document length" -> "longer than the " + max + " characters read";
            default -> "more than the " + max + " values read";
        };
    }

    private static String what(JsonProcessingException e, String message) {
        if (e instanceof JsonEOFException) {
            if (message.contains("VALUE_STRING") || message.contains("quote")) {
                return "the text ends inside a string";
            }
            if (message.contains("Object")) {
                return "the text ends inside an object";
            }
            return message.contains("Array") ? "the text ends inside a list" : "the text ends before the value does";
        }
        if (message.contains("CharConversionException") || message.startsWith("Invalid UTF-8")
                || message.startsWith("Invalid UTF-32")) {
            return "not UTF-8 text";
        }
        Matcher character = CHARACTER.matcher(message);
        if (character.find()) {
            return "unexpected character " + character(Integer.parseInt(character.group(1)));
        }
        Matcher close = CLOSE.matcher(message);
        if (close.find()) {
            return "unexpected '" + close.group(1) + "'";
        }
        Matcher word = WORD.matcher(message);
        if (word.find()) {
            return "unexpected word " + KubernetesNames.shown(word.group(1))
                    + " (text must be quoted; true, false and null are lower case)";
        }
        Matcher control = CONTROL.matcher(message);
        if (control.find()) {
            return "a control character (" + codePoint(Integer.parseInt(control.group(1)))
                    + ") inside a string, where it must be escaped";
        }
        Matcher escape = ESCAPE.matcher(message);
        if (escape.find()) {
            return "an unknown escape of " + character(Integer.parseInt(escape.group(1))) + " inside a string";
        }
        if (message.startsWith("Invalid numeric value") || message.startsWith("Numeric value")) {
            return "not a valid number";
        }
        return "not valid JSON";
    }

    /** A character as a user can read it: 'x' when printable, its code point otherwise. */
    private static String character(int code) {
        return code > 0x20 && code < 0x7f ? "'" + (char) code + "'" : codePoint(code);
    }

    private static String codePoint(int code) {
        return String.format("U+%04X", code);
    }

    private static String where(JsonLocation location) {
        if (location == null || location.getLineNr() < 1) {
            return "";
        }
        return location.getColumnNr() < 1 ? " at line " + location.getLineNr()
                : " at line " + location.getLineNr() + ", column " + location.getColumnNr();
    }
}
