; codesift's Ruby definitions, placed before tree-sitter-ruby's TAGS_QUERY: that query misses
; constants (`MAX = 10`).

(assignment left: (constant) @name) @definition.constant
