package io.dimstream.enrich;

import io.dimstream.model.Version;

/**
 * One record of the enriched stream: a fact, the version of its business key valid at its time, and which record of
 * the fact this is.
 *
 * @param version  the version valid at the fact's time; null when the dimension had none (the found column is false)
 * @param revision 1 for the fact's first record, one more for each correction
 */
public record Enriched(Fact fact, Version version, long revision) {
  public boolean found() {
    return version != null;
  }
}
