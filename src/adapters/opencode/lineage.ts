// Parent links of OpenCode sessions. OpenCode's own delete removes a session
// after recursively removing its children, so a session's deletion scope is
// its whole subtree; an orphan is a root, and cycle members (a session that
// is its own parent included) are reported so they can be blocked.

export { buildLineage, descendantsOf, minimalRoots, type Lineage } from '../shared/lineage.js';
