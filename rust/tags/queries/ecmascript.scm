; Definitions codesift adds to both JavaScript's and TypeScript's (and TSX's) queries, before
; javascript.scm and after typescript.scm: variables holding a function are functions, and
; variables declared at the top level of a module are variables.

(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(program (lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(program (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(program
  (export_statement
    declaration: (lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable)))
