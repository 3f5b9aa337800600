; codesift's C# definitions, placed before tree-sitter-c-sharp's TAGS_QUERY: that query misses
; structs, enums, records, delegates, constructors, properties, fields and file-scoped or
; dotted namespaces (and calls namespaces "module").

(struct_declaration name: (identifier) @name) @definition.struct
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(delegate_declaration name: (identifier) @name) @definition.type
(constructor_declaration name: (identifier) @name) @definition.constructor
(property_declaration name: (identifier) @name) @definition.property
(field_declaration (variable_declaration (variable_declarator name: (identifier) @name))) @definition.field
(enum_member_declaration name: (identifier) @name) @definition.constant
(namespace_declaration name: (_) @name) @definition.namespace
(file_scoped_namespace_declaration name: (_) @name) @definition.namespace
; A method in a window cut out of its class parses as a local function.
(local_function_statement name: (identifier) @name) @definition.function
