; codesift's Python definitions, placed before tree-sitter-python's TAGS_QUERY: that query
; calls methods "function"; here a function defined in a class body (decorated or not) is a
; "method", and a name assigned in a class body is a "field".

(class_definition
  body: (block (function_definition name: (identifier) @name) @definition.method))
(class_definition
  body: (block
    (decorated_definition definition: (function_definition name: (identifier) @name) @definition.method)))
(class_definition
  body: (block (expression_statement (assignment left: (identifier) @name) @definition.field)))
