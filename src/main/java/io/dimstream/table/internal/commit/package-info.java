/** Commits: planning the files a batch of version changes adds and removes, writing the commit, retrying a lost race. */
package io.dimstream.table.internal.commit;
