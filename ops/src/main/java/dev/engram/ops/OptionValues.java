package dev.engram.ops;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The one form of "this option's value is not allowed" for every {@code bin/engram} command: picocli's
 * {@link CommandLine.ParameterException}, worded like picocli's own error for a malformed value, so that the command
 * line answers both with one line naming the option and what it accepts, and exit code 2.
 */
public final class OptionValues {

    private OptionValues() {
    }

    /**
     * @param spec the command
     * @param option the option, e.g. {@code --port}
     * @param value what was given
     * @param allowed what the option accepts, e.g. {@code 0..65535 (0 = any free port)}
     * @return the exception for the command to throw
     */
    public static CommandLine.ParameterException invalid(final CommandSpec spec, final String option, final Object value,
                                                         final String allowed) {
        return new CommandLine.ParameterException(spec.commandLine(),
            "Invalid value for option '" + option + "': '" + value + "'; allowed: " + allowed);
    }

    /** Reads an ISO-8601 instant ({@code 2026-01-01T00:00:00Z}); anything else is one line naming the form. */
    public static final class IsoInstant implements CommandLine.ITypeConverter<java.time.Instant> {
        @Override
        public java.time.Instant convert(final String value) {
            return parse(value, java.time.Instant::parse, "an ISO-8601 instant in UTC, e.g. 2026-01-01T00:00:00Z");
        }
    }

    /** Reads an ISO-8601 duration ({@code PT30M}); anything else is one line naming the form. */
    public static final class IsoDuration implements CommandLine.ITypeConverter<java.time.Duration> {
        @Override
        public java.time.Duration convert(final String value) {
            return parse(value, java.time.Duration::parse, "an ISO-8601 duration, e.g. PT30M or PT2H");
        }
    }

    /**
     * Reads a whole number of seconds of at least 1 ({@code --connect-timeout}): 0 or a negative value is one line naming
     * what is allowed and exit code 2, before anything is asked (it failed later, as a run-time error with exit 1).
     */
    public static final class Seconds implements CommandLine.ITypeConverter<Integer> {
        @Override
        public Integer convert(final String value) {
            final int seconds;
            try {
                seconds = Integer.parseInt(value.strip());
            } catch (NumberFormatException e) {
                throw new CommandLine.TypeConversionException("'" + value + "'; allowed: whole seconds, at least 1");
            }
            if (seconds < 1) {
                throw new CommandLine.TypeConversionException("'" + value + "'; allowed: whole seconds, at least 1");
            }
            return seconds;
        }
    }

    private static <T> T parse(final String value, final java.util.function.Function<String, T> parser,
                               final String allowed) {
        try {
            return parser.apply(value);
        } catch (java.time.format.DateTimeParseException e) {
            throw new CommandLine.TypeConversionException("'" + value + "'; allowed: " + allowed);
        }
    }
}
