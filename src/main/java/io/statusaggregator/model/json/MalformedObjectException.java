package io.statusaggregator.model.json;

/** An object that cannot be read: a field of the wrong type, a negative count, a version that does not parse. */
public class MalformedObjectException extends Exception {
    private final String field;
    private final String problem;

    public MalformedObjectException(String field, String problem) {
        super(field.isEmpty() ? problem : field + ": " + problem);
        this.field = field;
        this.problem = problem;
    }

    /**
     * The path of the offending field, like {@code spec.workerNodeGroupConfigurations[1].count}; empty for the object.
     */
    public String field() {
        return field;
    }

    public String problem() {
        return problem;
    }
}
