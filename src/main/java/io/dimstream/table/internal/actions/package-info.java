/** Delta log actions named after the protocol (add, remove, txn, metaData, protocol, commitInfo) and their JSON form. */
package io.dimstream.table.internal.actions;
