package io.statusaggregator.model;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A class that decides and does nothing else: inputs in, decisions out, with no I/O, no thread, no clock of its own
 * and no framework type, so that a unit test drives every case of it. The build holds each such class to that
 * (HouseRulesTest): it uses only the JDK's language, collections and time, the model and its JSON decoders (a parsed
 * JSON tree counts as a value), the rules, the versions, and other classes marked pure. The packages {@code model},
 * {@code rules} and {@code versions} are pure as a whole.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.TYPE)
public @interface Pure {
}
