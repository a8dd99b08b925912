/**
 * Imported first by the stdio entry point: over stdio, stdout carries the MCP protocol and nothing
 * else, so anything a dependency prints through console goes to stderr. ES modules run their
 * imports in order, so this takes effect before any other module is evaluated.
 */
console.log = console.error;
console.info = console.error;
console.debug = console.error;
console.warn = console.error;
