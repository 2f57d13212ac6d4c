package io.dimstream.enrich;

/**
 * The facts an enrichment keeps cannot be read under its current spec: it refuses to run on them rather than emit
 * records made of misread facts. The message says what changed, why the kept facts do not follow, and the fix.
 */
public final class KeptStateException extends IllegalStateException {
  KeptStateException(String message) {
    super(message);
  }

  static KeptStateException unreadable(EnrichmentSpec spec, String why) {
    String where = spec.source() == null ? "" : " (" + spec.source() + ")";
    return new KeptStateException("enrichment " + spec.name() + where + " cannot run on the facts it keeps: they were"
        + " written under an earlier spec of it, and " + why + ", so they cannot be read or found as the new spec's;"
        + " nothing was enriched with them. Fix: restore the earlier facts section of the spec (columns, key, time)"
        + " and join; or run the changed spec under a new name, which starts its state afresh (its stores, repartition"
        + " topic and default topics are named after it) and reads the dimension's versions again from the versions"
        + " topic; or reset the state of the service's Kafka Streams application (kafka-streams-application-reset,"
        + " then delete the data directory's streams folder)");
  }
}
