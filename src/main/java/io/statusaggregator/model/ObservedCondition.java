package io.statusaggregator.model;

/** A condition as another controller reported it on a CAPI object. */
public record ObservedCondition(String type, String status, String reason, String message) {
    public boolean isTrue() {
        return "True".equals(status);
    }

    public boolean isFalse() {
        return "False".equals(status);
    }
}
