; codesift's JavaScript definitions, placed before tree-sitter-javascript's TAGS_QUERY: that
; query misses class fields and variables declared at the top level of a module (only those
; holding a function are tagged, as functions, which they stay here): ecmascript.scm (shared with
; TypeScript) comes first, then this.

(field_definition property: (property_identifier) @name) @definition.field
