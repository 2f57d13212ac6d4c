package io.dimstream.change;

import io.dimstream.model.ChangeEvent;
import java.util.List;
import java.util.Objects;

/** The outcome of decoding one record: a change event, or the reason it cannot be applied. */
public sealed interface Decoded permits Decoded.Accepted, Decoded.Rejected, Decoded.Skipped {

  /**
   * The record is a valid change event.
   *
   * @param unknownFields names of the record's fields the spec does not declare, under {@code unknown_fields: warn}
   *                      (empty otherwise), never null
   */
  record Accepted(ChangeEvent event, List<String> unknownFields) implements Decoded {
    public Accepted {
      Objects.requireNonNull(event, "event");
      unknownFields = List.copyOf(unknownFields);
    }

    public Accepted(ChangeEvent event) {
      this(event, List.of());
    }
  }

  /**
   * The record cannot be applied; it goes to the dead-letter topic unchanged (see {@link DeadLetters}).
   *
   * @param reason one of the {@link RejectReason} codes, never null
   * @param detail a human sentence naming the column or field at fault, never null
   */
  record Rejected(String reason, String detail) implements Decoded {
    public Rejected {
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(detail, "detail");
    }
  }

  /**
   * The record is expected and carries no change: a Debezium tombstone under {@code delete: debezium}, which the
   * connector writes right after each delete so that log compaction can drop the key. Counted, never dead-lettered.
   *
   * @param why a human sentence, never null
   */
  record Skipped(String why) implements Decoded {
    public Skipped {
      Objects.requireNonNull(why, "why");
    }
  }
}
