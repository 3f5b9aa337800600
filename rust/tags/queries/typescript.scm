; codesift's TypeScript (and TSX) definitions, placed before tree-sitter-javascript's
; TAGS_QUERY and tree-sitter-typescript's (which covers only what TypeScript adds: interfaces,
; abstract classes, signatures, modules). Both miss type aliases, enums, namespaces, class
; fields, and variables declared at the top level of a module (ecmascript.scm, shared with
; JavaScript, comes after this).

(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(internal_module name: (identifier) @name) @definition.namespace
(interface_declaration name: (type_identifier) @name) @definition.interface
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(public_field_definition name: (property_identifier) @name) @definition.field
(property_signature name: (property_identifier) @name) @definition.field
