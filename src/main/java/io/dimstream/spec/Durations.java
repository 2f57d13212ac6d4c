package io.dimstream.spec;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one duration syntax of dimstream, in the spec ({@code lateness_horizon}, {@code service.compaction.interval})
 * and on the command line ({@code table vacuum --retain}): a whole number with a unit {@code ms}, {@code s},
 * {@code m}, {@code h} or {@code d} ({@code 30d}, {@code 500ms}, case and a space before the unit ignored), or
 * ISO-8601 ({@code PT36H}, {@code P7D}).
 */
public final class Durations {
  private static final Pattern SHORT = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

  /** Examples for error messages, in the order a user would reach for them. */
  public static final String EXAMPLES = "30d, 12h, 90m, 10s, 500ms, or ISO-8601 such as P7D or PT36H";

  private Durations() {}

  /**
   * Reads {@code text} as a duration.
   *
   * @return the duration (may be zero or, in ISO-8601, negative: callers check their own range), or empty when
   *     {@code text} is null or neither syntax, or the value does not fit a {@link Duration}
   */
  public static Optional<Duration> parse(String text) {
    if (text == null) {
      return Optional.empty();
    }
    String t = text.trim();
    Matcher m = SHORT.matcher(t.toLowerCase(Locale.ROOT));
    try {
      if (m.matches()) {
        long n = Long.parseLong(m.group(1));
        return Optional.of(switch (m.group(2)) {
          case "ms" -> Duration.ofMillis(n);
          case "s" -> Duration.ofSeconds(n);
          case "m" -> Duration.ofMinutes(n);
          case "h" -> Duration.ofHours(n);
          default -> Duration.ofDays(n);
        });
      }
      return Optional.of(Duration.parse(t));
    } catch (DateTimeParseException | ArithmeticException | NumberFormatException e) {
      return Optional.empty();
    }
  }
}
