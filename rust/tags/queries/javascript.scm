; codesift's JavaScript definitions, placed before tree-sitter-javascript's TAGS_QUERY: that
; query misses class fields and variables declared at the top level of a module (only those
; holding a function are tagged, as functions, which they stay here).

(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(program (lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(program (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(program
  (export_statement
    declaration: (lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable)))
(field_definition property: (property_identifier) @name) @definition.field
