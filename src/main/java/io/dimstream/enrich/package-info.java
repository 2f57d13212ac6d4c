/** Point-in-time enrichment of fact streams with a dimension's history: the spec, the join and the incremental enricher that corrects what it emitted too early. */
package io.dimstream.enrich;
