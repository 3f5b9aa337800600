; codesift's Kotlin definitions: tree-sitter-kotlin-ng ships no tag query, so this is all of
; it: classes, interfaces, enums, objects, functions and methods, properties (of a file or a
; class: not the local variables of a function), type aliases.

(class_declaration "interface" name: (identifier) @name) @definition.interface
(class_declaration name: (identifier) @name (enum_class_body)) @definition.enum
(class_declaration name: (identifier) @name) @definition.class
(object_declaration name: (identifier) @name) @definition.object
(companion_object name: (identifier) @name) @definition.object
(class_body (function_declaration name: (identifier) @name) @definition.method)
(enum_class_body (function_declaration name: (identifier) @name) @definition.method)
(function_declaration name: (identifier) @name) @definition.function
(source_file (property_declaration (variable_declaration (identifier) @name)) @definition.property)
(class_body (property_declaration (variable_declaration (identifier) @name)) @definition.property)
(type_alias type: (identifier) @name) @definition.type
(enum_entry (identifier) @name) @definition.constant
