package io.paduraksa.policy.attack;

import static io.paduraksa.policy.attack.AttackRule.CRITICAL;
import static io.paduraksa.policy.attack.AttackRule.NOTICE;
import static io.paduraksa.policy.attack.AttackRule.WARNING;
import static io.paduraksa.policy.attack.Part.ALL;
import static io.paduraksa.policy.attack.Part.COOKIE;
import static io.paduraksa.policy.attack.Part.FILE_NAME;
import static io.paduraksa.policy.attack.Part.HEADER;
import static io.paduraksa.policy.attack.Part.PATH;
import static io.paduraksa.policy.attack.Part.QUERY;
import static io.paduraksa.policy.attack.Part.USER_AGENT;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The rule table, written after the CRS rule groups (our own patterns, not CRS's regular
 * expressions), and the automata compiled from it: per part kind and paranoia level one
 * {@link Dfa} over the union of the rules that apply (a pre-filter walked over every value), and
 * per rule its own {@link Dfa} (walked only over a value the union matched, to name the rules).
 * Automata are built on first use and shared by every snapshot (they depend only on the table).
 *
 * <p>SQL injection is detected by keyword sequences (tautologies after a quote, {@code union
 * select}, stacked statements, time delays, schema names, SQL functions), not by a libinjection-style
 * tokenizer and fingerprint set.
 */
public final class AttackRules {
    /** Separators SQL accepts between keywords once comments and whitespace are folded to one space. */
    private static final String SP = "[ ()]+";
    private static final String S = "[ ()]*";
    private static final String Q = "['\\\"`]";
    private static final String B = String.valueOf(Dfa.BEGIN_CHAR);
    private static final String E = String.valueOf(Dfa.END_CHAR);
    /** Not a word character: with {@link #B} and {@link #E}, what PCRE's {@code \\b} says next to a word. */
    private static final String NW = "[^a-z0-9_]";
    private static final int NOT_UA = PATH | QUERY | COOKIE | HEADER;
    /** The request methods CRS 921110 looks for in a value (its list). */
    private static final String METHODS = alternatives("get", "post", "head", "options", "connect", "put", "delete", "trace", "track",
            "patch", "propfind", "proppatch", "mkcol", "copy", "move", "lock", "unlock");
    private static final int VALUES = QUERY | COOKIE | HEADER;
    private static final int SQL = QUERY | COOKIE | HEADER | USER_AGENT;
    /** CRS's ARGS and REQUEST_COOKIES: what the SQL rules of paranoia 2 read (not headers). */
    private static final int ARG_VALUES = QUERY | COOKIE;
    /** What CRS 3.3 reads in every request header ({@code REQUEST_HEADERS}) besides the values: only with {@code all_headers}. */
    private static final int ANY = Part.ANY_HEADER;
    /** Classes attacks on Java name (the class list of CRS 944130, {@code java-classes.data}, lower-cased). */
    private static final String[] JAVA_CLASSES = {"com.opensymphony.xwork2", "com.sun.org.apache", "java.io.bufferedinputstream",
        "java.io.bufferedreader", "java.io.bytearrayinputstream", "java.io.bytearrayoutputstream", "java.io.chararrayreader",
        "java.io.datainputstream", "java.io.file", "java.io.fileoutputstream", "java.io.filepermission", "java.io.filewriter",
        "java.io.filterinputstream", "java.io.filteroutputstream", "java.io.filterreader", "java.io.inputstream",
        "java.io.inputstreamreader", "java.io.linenumberreader", "java.io.objectoutputstream", "java.io.outputstream",
        "java.io.pipedoutputstream", "java.io.pipedreader", "java.io.printstream", "java.io.pushbackinputstream", "java.io.reader",
        "java.io.stringreader", "java.lang.class", "java.lang.integer", "java.lang.number", "java.lang.object", "java.lang.process",
        "java.lang.processbuilder", "java.lang.reflect", "java.lang.runtime", "java.lang.string", "java.lang.stringbuilder",
        "java.lang.system", "javax.script.scriptenginemanager", "org.apache.commons", "org.apache.struts", "org.apache.struts2",
        "org.omg.corba", "java.beans.xmldecode"};
    /** PHP functions CRS 933160 looks for called as {@code name(...)} (its list, lower-cased). */
    private static final String[] PHP_FUNCTIONS = {
        "array_diff_uassoc", "array_diff_ukey", "array_filter", "array_intersect_uassoc", "array_intersect_ukey", "array_map",
        "array_reduce", "array_udiff", "array_udiff_assoc", "array_udiff_uassoc", "array_uintersect",
        "array_uintersect_assoc", "array_uintersect_uassoc", "assert", "assert_options", "base64_encode", "bson_decode",
        "bson_encode", "bzopen", "chr", "convert_uuencode", "create_function", "curl_exec", "curl_file_create", "curl_init",
        "debug_backtrace", "error_reporting", "escapeshellarg", "escapeshellcmd", "eval", "exec", "exif_imagetype",
        "exif_read_data", "exif_tagname", "exif_thumbnail", "file", "file_exists", "fileatime", "filectime", "filegroup",
        "fileinode", "filemtime", "fileperms", "finfo_open", "fopen", "fputs", "ftp_connect", "ftp_get", "ftp_nb_get",
        "ftp_nb_put", "ftp_put", "function_exists", "fwrite", "get_cfg_var", "get_current_user", "get_meta_tags", "getcwd",
        "getenv", "getimagesize", "getlastmod", "getmygid", "getmyinode", "getmypid", "getmyuid", "glob", "gzcompress",
        "gzdeflate", "gzencode", "gzfile", "gzopen", "gzread", "gzwrite", "hash_file", "hash_hmac_file", "hash_update_file",
        "header_register_callback", "hex2bin", "highlight_file", "html_entity_decode", "htmlentities", "htmlspecialchars",
        "htmlspecialchars_decode", "image2wbmp", "imagecreatefromgif", "imagecreatefromjpeg", "imagecreatefrompng",
        "imagecreatefromwbmp", "imagecreatefromxbm", "imagecreatefromxpm", "imagegd", "imagegd2", "imagegif", "imagejpeg",
        "imagepng", "imagewbmp", "imagexbm", "ini_get", "ini_get_all", "ini_set", "iptcembed", "is_dir", "is_executable",
        "is_file", "is_readable", "is_writable", "is_writeable", "iterator_apply", "json_decode", "json_encode", "mb_ereg",
        "mb_ereg_match", "mb_ereg_replace", "mb_ereg_replace_callback", "mb_eregi", "mb_eregi_replace", "mb_parse_str",
        "md5_file", "method_exists", "mkdir", "move_uploaded_file", "mysql_query", "ob_clean", "ob_end_clean", "ob_end_flush",
        "ob_flush", "ob_get_clean", "ob_get_contents", "ob_get_flush", "ob_start", "odbc_connect", "odbc_exec",
        "odbc_execute", "odbc_result", "odbc_result_all", "opendir", "parse_ini_file", "parse_str", "passthru", "pg_connect",
        "pg_execute", "pg_prepare", "pg_query", "php_strip_whitespace", "php_uname", "phpinfo", "phpversion", "popen",
        "posix_getegid", "posix_geteuid", "posix_getgid", "posix_getlogin", "posix_getpwnam", "posix_kill", "posix_mkfifo",
        "posix_mknod", "posix_ttyname", "preg_match", "preg_match_all", "preg_replace", "preg_replace_callback",
        "preg_replace_callback_array", "preg_split", "print_r", "proc_close", "proc_get_status", "proc_nice", "proc_open",
        "proc_terminate", "putenv", "rawurldecode", "rawurlencode", "read_exif_data", "readdir", "readfile", "readgzfile",
        "register_shutdown_function", "register_tick_function", "rename_function", "runkit_constant_add",
        "runkit_constant_redefine", "runkit_function_add", "runkit_function_copy", "runkit_function_redefine",
        "runkit_function_rename", "runkit_method_add", "runkit_method_copy", "runkit_method_redefine", "runkit_method_rename",
        "session_set_save_handler", "session_start", "set_error_handler", "set_exception_handler", "set_include_path",
        "set_magic_quotes_runtime", "setdefaultstub", "sha1_file", "show_source", "simplexml_load_file",
        "simplexml_load_string", "socket_connect", "socket_create", "spl_autoload_register", "sqlite_array_query",
        "sqlite_create_aggregate", "sqlite_create_function", "sqlite_exec", "sqlite_open", "sqlite_popen", "sqlite_query",
        "sqlite_single_query", "sqlite_unbuffered_query", "stream_context_create", "stream_socket_client", "stripcslashes",
        "stripslashes", "strrev", "system", "tmpfile", "uasort", "uksort", "unpack", "unserialize", "urldecode", "urlencode",
        "usort", "var_dump"};
    /** SQL function names (the list CRS 942150 and 942410 spell as one trie), each called as {@code name(}. */
    private static final String[] SQL_FUNCTIONS = {
        "abs", "acos", "adddate", "addtime", "aes_decrypt", "aes_encrypt", "ascii", "asciistr", "asin", "atan", "atan2",
        "avg", "benchmark", "bin", "bin_to_num", "bit_and", "bit_count", "bit_length", "bit_or", "bit_xor", "cast", "char",
        "char_length", "character_length", "charset", "chr", "ciel", "cieling", "coalesce", "coercibility", "compress",
        "concat", "concat_ws", "connection_id", "conv", "convert", "convert_tz", "cos", "cot", "count", "cr32", "curdate",
        "current_date", "current_time", "current_timestamp", "current_user", "curtime", "database", "date", "date_add",
        "date_format", "date_sub", "datediff", "day", "dayname", "dayofmonth", "dayofweek", "dayofyear", "dcount", "decode",
        "default", "degrees", "des_decrypt", "des_encrypt", "dump", "elt", "encode", "encrypt", "exp", "export_set",
        "extract", "extractvalue", "field", "field_in_set", "find_in_set", "floor", "format", "found_rows", "from_base64",
        "from_days", "from_unixtime", "get_format", "get_lock", "greatest", "group_concat", "hex", "hextoraw", "hour", "if",
        "ifnull", "in", "inet6_aton", "inet6_ntoa", "inet_aton", "inet_ntoa", "insert", "instr", "interval", "is",
        "is_free_lock", "is_ipv4", "is_ipv4_compat", "is_ipv4_mapped", "is_ipv6", "is_not", "is_not_null", "is_null",
        "is_used_lock", "isnull", "last", "last_day", "last_insert_id", "lcase", "least", "left", "length", "ln", "load_file",
        "local", "localtimestamp", "locate", "log", "log10", "log2", "lower", "lpad", "ltrim", "make_set", "makedate",
        "master_pos_wait", "max", "md5", "microsecond", "mid", "min", "minute", "mod", "month", "monthname", "name_const",
        "not_in", "now", "nullif", "oct", "octet_length", "old_password", "ord", "password", "period_add", "period_diff",
        "pg_sleep", "pi", "position", "pow", "power", "procedure_analyse", "quarter", "quote", "radians", "rand", "rawtohex",
        "rawtonhex", "rawtonhextoraw", "release_lock", "repeat", "replace", "reverse", "right", "round", "row_count", "rpad",
        "rtrim", "schema", "sec_to_time", "second", "session_user", "sha", "sha1", "sha2", "sign", "sin", "sleep", "soundex",
        "space", "sqrt", "std", "stddev", "stddev_pop", "stddev_samp", "str_to_date", "strcmp", "subdate", "substr",
        "substring", "substring_index", "subtime", "sum", "sysdate", "system_user", "tan", "time", "time_format",
        "time_to_sec", "timediff", "timestamp", "timestampadd", "timestampdiff", "to_base64", "to_char", "to_days",
        "to_nchar", "to_seconds", "trim", "truncate", "ucase", "uncompress", "uncompressed_length", "unhex", "unix_timestamp",
        "updatexml", "upper", "user", "utc_date", "utc_time", "utc_timestamp", "uuid", "uuid_short", "values", "var_pop",
        "var_samp", "variance", "version", "week", "weekday", "weekofyear", "weight_string", "xmltype", "year", "yearweek"};
    /** PHP configuration directives CRS 933120 looks for next to an {@code =} (its {@code php-config-directives.data}). */
    private static final String[] PHP_DIRECTIVES = resourceLines("php-config-directives.txt");
    /** Deserialization gadgets CRS 944120 looks for next to {@code runtime} or {@code processbuilder}. */
    private static final String JAVA_GADGETS = "clonetransformer|forclosure|instantiatefactory|instantiatetransformer|invokertransformer"
            + "|prototypeclonefactory|prototypeserializationfactory|whileclosure|getproperty|filewriter|xmldecoder";

    /** Position of the next rule in the table (its bit in a request's match set). */
    private static int nextIndex;
    private static final List<AttackRule> RULES = List.of(
            // 913: scanners that say who they are.
            rule(913100, 1, CRITICAL, USER_AGENT, words("nikto", "sqlmap", "nmap", "nessus", "openvas", "acunetix", "netsparker",
                    "w3af", "dirbuster", "gobuster", "feroxbuster", "masscan", "zgrab", "wpscan", "nuclei", "havij", "arachni",
                    "skipfish", "wfuzz", "ffuf/", "whatweb", "commix", "fimap", "zmeu", "morfeus", "jaeles", "webinspect",
                    "appscan", "sqlninja", "bsqlbf", "burpcollaborator", "jorgee", "paros/"), "security scanner user agent"),
            // CRS 913110 (scanners-headers.data): in any header's value with all_headers; header names are checked by
            // AttacksPolicy#inspectAllHeaders with this rule's automaton.
            rule(913110, 1, CRITICAL, ANY, words("acunetix-product", "(acunetix web vulnerability scanner", "acunetix-scanning-agreement",
                    "acunetix-user-agreement", "myvar=1234", "x-ratproxy-loop", "bytes=0-,5-0,5-1,5-2,5-3,5-4,5-5,5-6,5-7,5-8,5-9,5-10,5-11,5-12,5-13,5-14",
                    "x-scanner"), "request header of a security scanner"),
            rule(913120, 1, CRITICAL, PATH | QUERY, words("/.adsensepostnottherenonobook", "/<invalid>hello.html",
                    "/actsensepostnottherenonotive", "/acunetix-wvs-test-for-some-inexistent-file", "/antidisestablishmentarianism",
                    "appscan_fingerprint", "/arachni-", "/cybercop", "nessus_is_probing_you_", "/nessustest", "/netsparker-",
                    "/rfiinc.txt", "/thereisnowaythat-you-canbethere", "/w3af/remotefileinclude.html", "w00tw00t.at."),
                    "security scanner URL"),
            // 920 / 921: protocol anomalies the HTTP decoders do not already reject.
            rule(920270, 1, CRITICAL, ALL, "\u0000", "NUL byte in a value"),
            rule(920271, 2, CRITICAL, VALUES | USER_AGENT, "[\u0001-\u0008\u000e-\u001f\u007f]", "control character in a value"),
            rule(921130, 1, CRITICAL, VALUES, "\n ?(" + alternatives("set-cookie", "location", "content-type", "content-length",
                    "refresh", "transfer-encoding", "cookie", "host", "via", "remote-addr", "remote-ip", "x-forwarded-for",
                    "x-forwarded-host", "x-forwarded-server", "forwarded-for", "originating-ip") + ")[ \n]?:|\nhttp/[0-9]|\n ?<(html|meta)(" + NW + "|" + E + ")",
                    "HTTP response splitting (CR/LF and a header or a document)"),
            // CRS 921110: a request line in a value, ended by an HTTP version or (after a line break) by another one.
            rule(921110, 1, CRITICAL, VALUES, "(" + B + "|" + NW + ")(" + METHODS + ") (/|[a-z0-9_])[^ \n]* http/[0-9]|\n(" + METHODS
                    + ") (/|[a-z0-9_])[^ \n]*\n", " http/[0-9]|\n(" + METHODS + ") ", "HTTP request smuggling (a request line in a value)"),
            rule(921190, 1, CRITICAL, PATH, "\n", "CR or LF in the path"),
            // CRS 921200: a value that closes an LDAP filter with ")" (no filter punctuation before it) and opens another.
            rule(921200, 1, CRITICAL, QUERY | COOKIE, B + "[^:()&|!<>~]*\\) ?(\\(([^,()=&|!<>~]+[><~]?=| ?[&!|] ?[)(]?)|\\) ?\\( ?[&|!]"
                    + "|[&!|] ?\\([^()=&|!<>~]+[><~]?=)", "\\) ?[()&!|]", "LDAP injection (a filter closed and another opened)"),
            rule(920440, 1, CRITICAL, PATH, "\\.(" + alternatives("asa", "asax", "ascx", "axd", "backup", "bak", "bat", "cdx", "cer",
                    "cfg", "cmd", "config", "conf", "cs", "csproj", "csr", "dat", "db", "dbf", "dll", "dos", "htr", "htw", "ida", "idc",
                    "idq", "inc", "ini", "key", "licx", "lnk", "log", "mdb", "old", "pass", "pdb", "pol", "printer", "pwd", "rdb",
                    "resources", "resx", "sql", "swp", "sys", "vb", "vbs", "vbproj", "vsdisco", "webinfo", "xsd", "xsx") + ")" + E,
                    "restricted file extension"),
            rule(920500, 1, CRITICAL, PATH, "\\.[^/.~]+~(/|" + E + ")", "~", "backup or working file (name~)"),
            // 930: path traversal and local file inclusion.
            rule(930100, 1, CRITICAL, NOT_UA | ANY, words("%2e%2e", "%2e.", ".%2e", "..%2f", "..%5c", "%c0%ae", "%c0%af", "%c1%9c",
                    "%c1%1c", "%u002e", "%uff0e", "%e0%80%ae", "%252e") + "|0x(2f|5c)(0x2e|\\.)(0x2e|\\.)", "path traversal, encoded"),
            rule(930110, 1, CRITICAL, NOT_UA | ANY, "(" + B + "|[/\\\\])\\.\\.(;?[/\\\\]|" + E + ")", "path traversal"),
            rule(930120, 1, CRITICAL, NOT_UA, words("etc/passwd", "etc/shadow", "etc/group", "etc/hosts", "etc/issue",
                    "proc/self/", "proc/version", "boot.ini", "win.ini", "system.ini", "windows/system32", "windows\\system32",
                    ".bash_history", ".ssh/", "id_rsa", ".htpasswd", ".htaccess", "web.config", "wp-config.php", ".git/",
                    ".svn/") + "|[/\\\\]\\.env(" + E + "|[^a-z0-9_])", "operating-system or restricted file"),
            // 932: remote command execution.
            rule(932100, 1, CRITICAL, VALUES, "(;|\\||&&|`|\n|\\$\\{ifs\\}) ?(/(usr/)?s?bin/)?(" + alternatives("cat", "wget", "curl",
                    "nc", "ncat", "netcat", "bash", "sh", "zsh", "ksh", "csh", "dash", "id", "whoami", "uname", "ls", "ps", "python",
                    "python3", "perl", "ruby", "php", "chmod", "chown", "rm", "echo", "ping", "nslookup", "dig", "telnet",
                    "busybox", "base64", "sleep", "lwp-download", "lwp-request", "lwp-mirror", "kill", "passwd", "ifconfig", "env", "printenv", "nohup", "tftp", "ssh",
                    "socat", "awk", "find", "head", "tail", "touch", "mkfifo", "crontab", "sudo", "su") + ")([ ;|&<>`)]|" + E + ")",
                    "Unix command after a shell separator"),
            rule(932110, 1, CRITICAL, VALUES, "(;|\\||&|`|\n) ?(" + alternatives("cmd", "cmd.exe", "powershell", "powershell.exe",
                    "pwsh", "net", "ipconfig", "systeminfo", "certutil", "bitsadmin", "wmic", "tasklist", "reg", "rundll32",
                    "regsvr32", "mshta", "cscript", "wscript") + ")([ ;|&<>`/]|" + E + ")|\\| ?type [^ ]|powershell(\\.exe)? ?[-/](enc|e|c|nop|noni|w|"
                    + "command|encodedcommand|executionpolicy|ep)( |" + E + ")", "Windows command"),
            rule(932120, 1, CRITICAL, VALUES, "/s?bin/(ba|z|k|c|da)?sh|/usr/s?bin/|\\$\\{ifs\\}", "Unix shell path"),
            // CRS 932200 (paranoia 2): a path with a shell glob after a separator (";/bin/ca? /et*/passwd").
            rule(932200, 2, CRITICAL, ARG_VALUES, "(;|\\||&&|`|\n) ?[a-z0-9_.]*/[a-z0-9_./]*[*?]", "[*?]",
                    "RCE bypass: a glob in a command path"),
            rule(932130, 2, CRITICAL, VALUES, "\\$\\([a-z]|`[a-z]+( [^`]*)?`", "\\$\\([a-z]|`[a-z]", "shell command substitution"),
            // Windows FOR / IF (CRS 932140), read after cmdLine: "for /f" is "for/f", "in (x)" is "in(x)".
            cmdRule(932140, 1, CRITICAL, VALUES, "(" + B + "|" + NW + ")(if(/i)?( not)?( exist| defined| errorlevel| cmdextversion)(" + NW
                    + "|" + E + ")|if(/i)?( not)?[ (](.*" + NW + ")?(geq|equ|neq|leq|gtr|lss)(" + NW + "|" + E + ")"
                    + "|if(/i)?( not)?[ (].*==|for(/[dflr].*)? %+[^ ]+ in\\(.*\\) ?do)", "(" + B + "|" + NW + ")(if|for)", "Windows FOR or IF command"),
            rule(932170, 1, CRITICAL, ALL | ANY, "\\( ?\\) ?\\{", "Shellshock function definition"),
            // 933: PHP injection.
            rule(933100, 1, CRITICAL, VALUES, "<\\?(php|=)", "PHP open tag"),
            rule(933110, 1, CRITICAL, VALUES, "(" + alternatives("php", "phar", "zlib", "glob", "expect", "ogg", "rar", "zip",
                    "compress.zlib", "compress.bzip2") + "):/", "PHP stream wrapper"),
            rule(933111, 1, CRITICAL, FILE_NAME, "\\.(php[0-9]*|phtml|phar)\\.*" + E, "\\.(php|phtml|phar)", "PHP file name in an upload header"),
            rule(933130, 1, CRITICAL, VALUES, "\\$(_(get|post|cookie|server|request|files|env|session)|globals)([^a-z0-9_]|" + E + ")",
                    "PHP superglobal"),
            // CRS 933120: a PHP configuration directive set with "=" (its list: every name holds "." or "_", but browscap).
            rule(933120, 1, CRITICAL, ARG_VALUES, "(" + B + "|[^a-z0-9_.])(" + alternatives(PHP_DIRECTIVES) + ") *=", "=",
                    "PHP configuration directive"),
            rule(933150, 1, CRITICAL, PATH | QUERY | COOKIE, words("__halt_compiler", "apache_child_terminate", "base64_decode",
                    "bzdecompress", "call_user_func", "call_user_method", "convert_uudecode", "file_get_contents", "file_put_contents",
                    "fsockopen", "get_class_methods", "get_class_vars", "get_defined_constants", "get_defined_functions",
                    "get_defined_vars", "gzdecode", "gzinflate", "gzuncompress", "include_once", "invokeargs", "pcntl_exec",
                    "pcntl_fork", "pfsockopen", "posix_getcwd", "posix_getpwuid", "posix_getuid", "posix_uname",
                    "reflectionfunction", "require_once", "shell_exec", "str_rot13", "sys_get_temp_dir", "wp_remote_fopen",
                    "wp_remote_get", "wp_remote_head", "wp_remote_post", "wp_remote_request", "wp_safe_remote_get",
                    "wp_safe_remote_head", "wp_safe_remote_post", "wp_safe_remote_request", "zlib_decode"),
                    "high-risk PHP function name"),
            rule(933160, 1, CRITICAL, VALUES, "(" + B + "|[^a-z0-9_])(" + alternatives("eval", "shell_exec", "passthru", "popen",
                    "proc_open", "pcntl_exec", "base64_decode", "gzinflate", "gzuncompress", "str_rot13", "create_function",
                    "call_user_func", "call_user_func_array", "file_get_contents", "file_put_contents", "fsockopen", "phpinfo",
                    "unserialize", "highlight_file", "show_source", "move_uploaded_file") + ") ?\\(|(" + B + "|[^a-z0-9_])("
                    + alternatives("system", "exec", "assert", "include", "require", "include_once", "require_once", "readfile",
                    "fopen") + ")\\(", "PHP function call"),
            // CRS 933160's own name list: the name at a word start, line breaks (not spaces, which tabs become: "system (x)" is
            // English), then "(" and later ")".
            rule(933161, 1, CRITICAL, PATH | QUERY | COOKIE, "(" + B + "|" + NW + ")(" + alternatives(PHP_FUNCTIONS) + ")[\t\r\n]*\\(.*\\)",
                    "(" + B + "|" + NW + ")(" + alternatives(PHP_FUNCTIONS) + ")[\t\r\n]*\\(", "PHP function call (CRS 933160's list)"),
            rule(933180, 1, CRITICAL, PATH | QUERY | COOKIE, "\\$+([a-z_\u007f-\u00ff][a-z0-9_\u007f-\u00ff]*| ?\\{.+\\})"
                    + "( |\\[.+\\]|\\{.+\\}|//.*|#.*)*\\(.*\\)", "\\$", "PHP variable function call"),
            rule(933210, 1, CRITICAL, PATH | QUERY | COOKIE, "[(\\[][a-z0-9_.$\\\"'\\[\\](){}/* ]+[)\\]][0-9_.$\\\"'\\[\\](){}/* ]*"
                    + "\\([a-z0-9_.$\\\"'\\[\\](){}/* ].*\\)|\\( ?string ?\\) ?[\\\"']", "\\(", "PHP callable in parentheses or brackets"),
            rule(933170, 1, CRITICAL, VALUES | ANY, "[oc]:[0-9]+:\\\"[a-z0-9_\\\\]+\\\":[0-9]+:\\{", "PHP serialized object"),
            // 941: cross-site scripting.
            rule(941110, 1, CRITICAL, ALL, "< ?(/ ?)?([a-z0-9_-]+ ?: ?)?script", "script tag (a namespace prefix too)"),
            rule(941161, 1, CRITICAL, ALL, "< ?([a-z0-9_-]+ ?: ?)?(" + obfuscated("script") + "|" + obfuscated("form") + "|" + obfuscated("style")
                    + "|" + obfuscated("iframe") + "|" + obfuscated("object") + "|" + obfuscated("embed") + "|" + obfuscated("applet")
                    + ")(" + NW + "|" + E + ")", "dangerous HTML tag, letters spaced out"),
            rule(941162, 1, CRITICAL, ALL, "[ \\\"'`;/0-9=,(]on[a-z][a-z][a-z][a-z]* ?=([^=]|" + E + ")", "event handler attribute"),
            rule(941240, 1, CRITICAL, ALL, "<\\? ?import[ /]|<[a-z0-9_-]+:namespace|<\\?xml-stylesheet|behavior ?:",
                    "IE import, namespace or behaviour"),
            rule(941120, 1, CRITICAL, ALL, "<[a-z!/?][^>]*[ /\\\"'`]on[a-z]+ ?=", "<[a-z!/?]", "event handler in a tag"),
            rule(941130, 1, CRITICAL, ALL, words("xlink:href", "formaction", "srcdoc", "data:text/html", "fscommand",
                    "seeksegmenttime") + "|xmlns ?(:[a-z0-9_-]+ ?)?=", "XSS attribute, XML namespace declaration or data URL"),
            // CRS 941310: US-ASCII malformed encoding, the tag's brackets as 0xBC and 0xBE; here as the JavaScript escapes
            // CRS's jsDecode reads (\xbc, \xbe), since a literal byte 0xBC is the UTF-8 tail of the fraction sign.
            rule(941310, 1, CRITICAL, QUERY | COOKIE, "\\\\xbc[^>]*(\\\\xbe|>)|<.*\\\\xbe", "\\\\xbc|<",
                    "XSS in US-ASCII malformed encoding"),
            // CRS 941360: JSFuck.
            rule(941360, 1, CRITICAL, QUERY | COOKIE, "![!+ ]\\[\\]", "JSFuck"),
            rule(941160, 1, CRITICAL, ALL, "<(" + alternatives("iframe", "frame", "frameset", "svg", "object", "embed", "applet",
                    "meta", "base", "math", "form", "isindex", "xml", "xss", "img", "image", "video", "audio", "body", "input",
                    "details", "marquee", "link", "style", "layer", "bgsound", "template", "noscript") + ")([ />\n]|" + E + ")",
                    "dangerous HTML tag"),
            rule(941170, 1, CRITICAL, ALL, "(java|vb|live)script ?:(.*[=\\\\(\\[.<`]|.*(" + B + "|" + NW + ")name(" + NW + "|" + E + "))",
                    "(java|vb|live)script ?:", "script URL scheme with code after it"),
            rule(941210, 1, CRITICAL, ALL, obfuscated("javascript:") + "|" + obfuscated("vbscript:") + "|" + obfuscated("livescript:"),
                    "script URL scheme, letters spaced out"),
            // A comment between the name and the property is a space once comments are removed (CRS 941370's document/**/.cookie).
            rule(941180, 1, CRITICAL, ALL, "document ?\\. ?(cookie|domain|write)|window ?\\. ?location|\\.fromcharcode",
                    "DOM access typical of XSS"),
            rule(941200, 1, CRITICAL, ALL, "<.*vmlframe.*src[ /+]*=", "vmlframe", "IE VML frame (CRS 941200)"),
            // CRS 941350: UTF-7's "+ADw-" and "+AD4-" for < and >, the + still encoded once more (CRS decodes three times).
            rule(941350, 1, CRITICAL, QUERY | COOKIE, "(\\+|%2b)adw-.*((\\+|%2b)ad4-|>)|<.*(\\+|%2b)ad4-", "(\\+|%2b)ad[w4]-",
                    "UTF-7 encoded XSS"),
            // CRS 941320 (paranoia 2): an HTML tag of its list, opened and followed by a non-word character.
            rule(941320, 2, CRITICAL, ARG_VALUES, "<(" + alternatives("a", "abbr", "acronym", "address", "applet", "area", "audioscope", "b",
                    "base", "basefront", "bdo", "bgsound", "big", "blackface", "blink", "blockquote", "body", "bq", "br", "button", "caption",
                    "center", "cite", "code", "col", "colgroup", "comment", "dd", "del", "dfn", "dir", "div", "dl", "dt", "em", "embed",
                    "fieldset", "fn", "font", "form", "frame", "frameset", "h1", "head", "hr", "html", "i", "iframe", "ilayer", "img", "input",
                    "ins", "isindex", "kdb", "keygen", "label", "layer", "legend", "li", "limittext", "link", "listing", "map", "marquee",
                    "menu", "meta", "multicol", "nobr", "noembed", "noframes", "noscript", "nosmartquotes", "object", "ol", "optgroup",
                    "option", "p", "param", "plaintext", "pre", "q", "rt", "ruby", "s", "samp", "script", "select", "server", "shadow",
                    "sidebar", "small", "spacer", "span", "strike", "strong", "style", "sub", "sup", "table", "tbody", "td", "textarea",
                    "tfoot", "th", "thead", "title", "tr", "tt", "u", "ul", "var", "wbr", "xml", "xmp") + ")([^a-z0-9_]|" + E + ")",
                    "<[a-z]", "HTML tag handler"),
            rule(941190, 2, CRITICAL, ALL, "(" + B + "|[^a-z0-9_])(alert|prompt|confirm|eval|settimeout|setinterval) ?(\\(|`)"
                    + "|expression ?\\(", "script function call"),
            rule(941121, 2, CRITICAL, ALL, "(" + B + "|[^a-z0-9_])on(" + alternatives("error", "load", "click", "mouseover", "focus",
                    "blur", "submit", "change", "input", "keydown", "keyup", "mouseenter", "animationstart", "toggle",
                    "pointerover", "begin") + ") ?=", "event handler outside a tag"),
            // 942: SQL injection (keyword sequences).
            rule(942100, 1, CRITICAL, SQL, "union" + SP + "((all|distinct)" + SP + ")?select([^a-z0-9_]|" + E + ")", "UNION SELECT"),
            rule(942110, 1, CRITICAL, SQL, Q + "(" + " ?(or|and|xor|div)(" + SP + Q + "?|" + Q + ")" + "| ?(\\|\\||&&)" + S + Q + "?)"
                    + "([a-z0-9_.-]*" + Q + "? ?(=|<>|!=|<=|>=|<|>| like | is | rlike | regexp | in ?\\()"
                    + "|(true|false|null|[0-9]+) ?(--|#|;|" + E + "))", "tautology after a quote"),
            rule(942120, 1, CRITICAL, SQL, "[0-9a-z_)] (or|and|xor|\\|\\||&&) [(]*[0-9]+ ?(=|<>|!=|<=|>=|<|>) ?[(]*[0-9]+",
                    "numeric tautology"),
            rule(942130, 1, CRITICAL, SQL, "; ?(drop (table|database|schema|user|view)|delete from|insert into|update [a-z0-9_`\\\"]+ set"
                    + "|shutdown|exec(ute)? |declare @|create (table|user|database)|alter (table|user)|truncate |waitfor )",
                    "stacked SQL statement"),
            rule(942140, 1, CRITICAL, SQL, words("information_schema", "mysql.user", "mysql.db", "sysobjects", "syscolumns",
                    "pg_catalog", "pg_shadow", "sqlite_master", "xp_cmdshell", "sys.dm_", "msdb.", "dbms_pipe")
                    // CRS 942140's word list at word boundaries, and its database-name functions.
                    + "|(" + B + "|" + NW + ")(" + alternatives("msysaccessobjects", "msysaccessstorage", "msysaccessxml", "msysaces",
                    "msysrelationships", "msysobjects", "msysqueries", "msysmodules", "msysmodules2", "msdb", "master..sysdatabases",
                    "mysql.db", "pg_toast", "northwind", "tempdb", "sys.database_name", "sysaux", "sqlite_temp_master", "schema_name")
                    + ")(" + NW + "|" + E + ")|(database|db_name|schema) ?\\(", "database catalog name"),
            rule(942160, 1, CRITICAL, SQL, "(pg_sleep|benchmark) ?\\(|sleep\\( ?[0-9@]|waitfor delay|dbms_lock\\.sleep|randomblob ?\\(",
                    "time-based SQL probe"),
            rule(942161, 2, CRITICAL, SQL, "sleep ?\\( ?[0-9@]", "sleep( with a space"),
            rule(942170, 1, CRITICAL, SQL, "(load_file|extractvalue|updatexml|group_concat|concat_ws) ?\\(|into (out|dump)file|@@version"
                    + "|(database|version|current_user|system_user|schema|user) ?\\( ?\\)", "SQL function or variable"),
            rule(942171, 2, CRITICAL, SQL, "(" + B + "|[^a-z0-9_])(char|chr|ascii|substring|substr|mid|ord|hex|unhex|concat) ?\\(",
                    "SQL string function"),
            rule(942180, 1, CRITICAL, SQL, Q + " ?(--|\\) ?--)", "quote then SQL comment"),
            rule(942181, 2, CRITICAL, SQL, Q + " ?(#|;)", "quote then # or ;"),
            rule(942190, 1, CRITICAL, SQL, "select[ (]+(\\*|count ?\\(|[a-z0-9_]+ ?,|@@|concat|null).*[ )]from" + SP + "[a-z0-9_`\\\"\\[.]",
                    "select[ (]", "SELECT ... FROM"),
            // CRS 942190's gap-free alternatives: SQL keywords right after a quote, "!" between quotes, user and
            // database functions, EXEC master., INTO OUTFILE and IIF(.
            rule(942192, 1, CRITICAL, SQL, Q + ";? ?(having|select|union)([^a-z0-9_ ]| [^ ])|" + Q + " ?! ?[\\\"'`a-z0-9_]"
                    + "|(connection_id|current_user|database|schema|user) ?\\(|union select @|into (dump|out)file ?[\\\"'`]"
                    + "|exec(ute)? master\\.|[a-z0-9_]iif ?\\(", "SQL keyword after a quote, or a SQL user or database function"),
            // CRS 942360: a value that opens with punctuation or digits and then a statement keyword, X AS Y FROM,
            // a statement keyword before CHAR( or LOAD_FILE(, a quote then REGEXP, END);.
            rule(942360, 1, CRITICAL, SQL, B + "[0-9 !\\\"#$%&'()*+,./:;<=>?@\\[\\]^`{|}~-]+(" + alternatives("alter", "union", "select",
                    "insert", "delete", "desc", "load", "truncate", "rename", "update") + ")(" + NW + "|" + E + ")|" + B
                    + "[0-9 !\\\"#$%&'()*+,./:;<=>?@\\[\\]^`{|}~-]+create [a-z0-9_]"
                    + "|(create|insert|select|delete|desc|alter|load|truncate|rename|update) (group_concat|load_file|char) ?\\("
                    + "|[^a-z_] as ?[\\\"'`a-z0-9_]+ from(" + NW + "|" + E + ")|" + Q + " regexp(" + NW + "|" + E + ")|end ?\\);",
                    "SQL statement after punctuation, X AS Y FROM, or REGEXP after a quote"),
            // CRS 942320: stored procedures and variables.
            rule(942320, 1, CRITICAL, SQL, "create (procedure|function) ?[a-z0-9_]+ ?\\( ?\\) ?-|; ?(declare|open) [a-z0-9_-]+"
                    + "|procedure analyse ?\\(|declare ?[@#]|exec ?\\( ?@", "SQL stored procedure or variable declaration"),
            // CRS 942240: ALTER ... CHARACTER SET.
            rule(942240, 1, CRITICAL, SQL, "alter ?[a-z0-9_]+.*cha(racte)?r set [a-z0-9_]", "alter", "ALTER ... CHARACTER SET"),
            rule(942191, 2, CRITICAL, SQL, "select" + SP + ".*[ )]from" + SP + "[a-z0-9_`\\\"\\[.]", "select[ ()]", "SELECT ... FROM, loose"),
            rule(942220, 1, CRITICAL, SQL, B + "(" + alternatives("-0000023456", "4294967295", "4294967296", "2147483648", "2147483647",
                    "0000012345", "-2147483648", "-2147483649", "0000023456", "2.2250738585072007e-308", "2.2250738585072011e-308",
                    "1e309") + ")" + E, "integer overflow or magic number"),
            rule(942230, 1, CRITICAL, SQL, "[ ()]case ?\\(|\\) ?like ?\\(", "SQL CASE or LIKE in parentheses"),
            rule(942250, 1, CRITICAL, SQL, "execute ?immediate ?[\\\"'`]|match ?[a-z0-9_(),+-]+ ?against ?\\(", "EXECUTE IMMEDIATE or MATCH AGAINST"),
            rule(942280, 1, CRITICAL, SQL, "select ?pg_sleep|waitfor ?delay ?[\\\"'`]+ ?[0-9]|; ?shutdown ?(;|--|#|\\{|" + E + ")",
                    "PostgreSQL sleep, SQL Server delay or shutdown"),
            rule(942290, 1, CRITICAL, SQL, "\\[\\$(" + alternatives("ne", "eq", "lt", "lte", "gt", "gte", "in", "nin", "mod", "all", "size",
                    "exists", "type", "slice", "or", "xor", "div", "like", "between", "and", "regex", "where") + ")\\]", "MongoDB operator"),
            // CRS 942410 (and 942150, a subset of its names): a SQL function name at a word start, then "(".
            rule(942410, 2, CRITICAL, ARG_VALUES, "(" + B + "|" + NW + ")(" + alternatives(SQL_FUNCTIONS) + ")" + NW + "*\\(",
                    "(" + B + "|" + NW + ")(" + alternatives(SQL_FUNCTIONS) + ")", "SQL function call"),
            // CRS 942210: chained SQL injection (operator, word, comparison, quote), a statement after a comment or ;, SET @x.
            // No "+" where CRS has [!=+] and [\-+]: CRS decodes form values twice (t:urlDecodeUni), so only a
            // twice-encoded plus reaches its pattern as "+" (its negative tests 942210-31/44); \W needs a character.
            rule(942210, 2, CRITICAL, ARG_VALUES, "(nand|not|xxor|xor|or|between|\\|\\||like|and|div|&&)[ (]+[a-z0-9_]+[ )]*[!=]+[ 0-9]*"
                    + "[\\\"'`=()]|[0-9] ?(between|like|xor|or|and|div) ?[0-9]+ ?-|/[a-z0-9_]+;? (between|having|select|like|xor|or|and|div)"
                    + "[^a-z0-9_" + E + "]|(--|#|;) ?((insert|update) ?[a-z0-9_][a-z0-9_]|alter|drop)|" + NW + "set ?@[a-z0-9_]",
                    "chained SQL injection"),
            rule(942211, 2, CRITICAL, ARG_VALUES, "[0-9] group by .+\\(|@.+= ?\\( ?select", "group by|\\( ?select",
                    "chained SQL injection: GROUP BY ... ( or @x = (SELECT"),
            // CRS 942380: EXECUTE, ORDER BY, EXISTS (SELECT ...), HAVING n, and its gap alternatives (942381).
            rule(942380, 2, CRITICAL, ARG_VALUES, "(" + B + "|" + NW + ")execute( [a-z0-9_.$]|\\()|order by|exists ?(select[^ ]?(if|concat|top)"
                    + "|system ?\\(|having [0-9]| ?\\(? ?select)|(" + B + "|" + NW + ")having ?([0-9]+ ?[=<>]|[\\\"'][^=]?[^=]?[^=]?[^=]?[^=]?"
                    + "[^=]?[^=]?[^=]?[^=]?[^=]?[\\\"' ?\\[=<>])", "SQL EXECUTE, ORDER BY, EXISTS or HAVING"),
            rule(942381, 2, CRITICAL, ARG_VALUES, "select" + NW + "(.*" + NW + ")?case(" + NW + "|" + E + ")|from" + NW + "(.*" + NW + ")?limit(" + NW + "|" + E + ")|like" + NW + "*char" + NW + "*\\(|create ?table.*\\(",
                    "select|from|like|create ?table", "SQL SELECT ... CASE, FROM ... LIMIT, LIKE CHAR(, CREATE TABLE ... ("),
            // CRS 942120 (paranoia 2): a SQL operator anywhere in an argument (IN (digits), REGEXP, XOR, <>, <=, >=, ||, !=, ...);
            // unlike CRS, a comparison with a number ("price>=100", "age >= 18", an API filter) is not one.
            rule(942121, 2, CRITICAL, QUERY, "(" + B + "|" + NW + ")(regexp|rlike|isnull|xor)(" + NW + "|" + E + ")|(<>|<=|>=|!=)( ?[^0-9 ]| ?" + E + ")"
                    + "|<<|>>|\\|\\||&&|not between 0 and|(like|is) null", "SQL operator (CRS 942120's list)"),
            rule(942122, 2, CRITICAL, QUERY, "(" + B + "|" + NW + ")in ?\\([ 0-9\\\"]+[^()]*\\)", "(" + B + "|" + NW + ")in ?\\([ 0-9\\\"]",
                    "SQL IN list of numbers (CRS 942120)"),
            // CRS 942470 (paranoia 2): SQL Server and Oracle procedure and type names.
            // CRS 942110 (paranoia 2, a warning): an argument that opens with quotes or ";", or ends with quotes.
            rule(942111, 2, WARNING, ARG_VALUES, B + "[ \n]*[\\\"'`;]|[\\\"'`][ \n]*" + E, "argument opening or ending with a quote"),
            // CRS 942180 (paranoia 2): a digit, quote, quote, digit ("3' ' 1"), or an argument opening with admin and a quote.
            rule(942182, 2, CRITICAL, ARG_VALUES, "[0-9]" + Q + " " + Q + " [0-9]|" + B + "admin ?" + Q, "quoted digits apart, or admin'"),
            // CRS 942300 (paranoia 2): CASE's ") WHEN n THEN", CHAR(n).
            rule(942300, 2, CRITICAL, ARG_VALUES, "\\) ?when ?[0-9]+ ?then|cha?r ?\\( ?[0-9]", "SQL WHEN ... THEN or CHAR(n)"),
            // CRS 942400 (paranoia 2): AND and a short quoted string ("and '5'"); AND and a number is English ("between 2 and 5").
            rule(942400, 2, CRITICAL, ARG_VALUES, "(" + B + "|" + NW + ")and ?['\\\"][^=]([^=]([^=]([^=]([^=]([^=]([^=]([^=]([^=][^=]?)?)?)?)?)?)?)?)?['\\\"]",
                    "(" + B + "|" + NW + ")and ?['\\\"]", "AND and a quoted string"),
            rule(942470, 2, CRITICAL, ARG_VALUES, words("xp_regremovemultistring", "xp_regread", "xp_regdeletevalue", "xp_regdeletekey",
                    "xp_regenumvalues", "xp_regenumkeys", "xp_regaddmultistring", "xp_regwrite", "xp_servicecontrol", "xp_cmdshell",
                    "xp_execresultset", "xp_enumdsn", "xp_ntsec", "xp_terminate", "xp_availablemedia", "xp_loginconfig", "xp_filelist",
                    "xp_dirtree", "xp_makecab", "sp_addextendedproc", "sp_sqlexec", "sp_password", "sp_prepare", "sp_replwritetovarbin",
                    "sp_is_srvrolemember", "sp_execute", "sp_makewebtask", "sp_oacreate", "sp_help", "sql_longvarchar", "sql_variant",
                    "openowa_util", "openrowset", "openquery", "varchar", "tbcreator", "autonomous_transaction", "dba_users", "dbms_java",
                    "utl_file", "utl_http"), "SQL Server or Oracle procedure or type name"),
            // CRS 942450 (paranoia 2): a hexadecimal literal of three digits or more (SQL's 0x616263 for 'abc').
            rule(942450, 2, CRITICAL, ARG_VALUES, "(" + B + "|" + NW + ")0x[0-9a-f][0-9a-f][0-9a-f]", "SQL hex encoding"),
            rule(942131, 2, CRITICAL, SQL, B + "[a-z0-9_,]*[0-9]+(=|!=|<>)[0-9]+" + E, "bare numeric tautology as a whole value"),
            rule(942261, 2, CRITICAL, SQL, "(" + B + "|" + NW + ")like (null|binary|[\\\"'`])|in ?\\( ?select(" + NW + "|" + E + ")",
                    "LIKE NULL, LIKE and a quote, IN (SELECT"),
            rule(942440, 2, CRITICAL, SQL, "[a-z0-9_)] ?; ?(--|#)", "statement end then SQL comment"),
            rule(942480, 2, CRITICAL, SQL, words("msdasql", "sqloledb", "openrowset", "opendatasource", "openquery"),
                    "SQL Server remote data sources"),
            rule(942430, 2, WARNING, SQL, "[~!@#$%^&*()\\-+={}\\[\\]|:;\\\"'`<>]{12}", "[~!@#$%^&*()\\-+={}\\[\\]|:;\\\"'`<>][~!@#$%^&*()\\-+={}\\[\\]|:;\\\"'`<>]", "12 SQL special characters in a row"),
            rule(942431, 3, WARNING, SQL, "[~!@#$%^&*()\\-+={}\\[\\]|:;\\\"'`<>]{6}", "[~!@#$%^&*()\\-+={}\\[\\]|:;\\\"'`<>][~!@#$%^&*()\\-+={}\\[\\]|:;\\\"'`<>]", "6 SQL special characters in a row"),
            rule(942432, 4, WARNING, SQL, "[~!@#$%^&*()\\-+={}\\[\\]|:;\\\"'`<>]{2}", "[~!@#$%^&*()\\-+={}\\[\\]|:;\\\"'`<>][~!@#$%^&*()\\-+={}\\[\\]|:;\\\"'`<>]", "2 SQL special characters in a row"),
            // 920 / 921 over the head's fields, checked by ProtocolChecks in code (parts 0: never walked as patterns;
            // the pattern only documents what the check looks for).
            rule(920170, 1, CRITICAL, 0, "get|head", "GET or HEAD request with a body"),
            rule(920420, 1, CRITICAL, 0, "content-type", "request content type not allowed"),
            rule(920470, 1, CRITICAL, 0, "content-type", "malformed Content-Type header"),
            rule(920480, 1, CRITICAL, 0, "charset=", "request content type charset not allowed"),
            rule(920450, 1, CRITICAL, 0, "content-encoding|proxy|lock-token|content-range|if",
                    "restricted header"),
            rule(921421, 1, CRITICAL, 0, "xml|json", "Content-Type header injection: a second XML or JSON type"),
            // 920220, 920210 and 920200 are warnings in CRS: alone they do not reach the default threshold.
            rule(920220, 1, WARNING, 0, "%", "invalid URL encoding in the request target"),
            rule(920210, 1, WARNING, 0, "keep-alive|close", "conflicting or repeated Connection options"),
            rule(920200, 2, WARNING, 0, "bytes=", "Range header with six or more ranges"),
            rule(920300, 2, NOTICE, 0, "accept", "request missing an Accept header"),
            rule(920310, 1, NOTICE, 0, "accept", "request with an empty Accept header"),
            rule(920311, 1, NOTICE, 0, "accept", "request with an empty Accept header and no User-Agent"),
            rule(920330, 1, NOTICE, 0, "user-agent", "empty User-Agent header"),
            rule(920320, 2, NOTICE, 0, "user-agent", "request missing a User-Agent header"),
            // CRS 911100 allows GET, HEAD, POST and OPTIONS; PUT, DELETE and PATCH are an API's everyday methods here.
            rule(911100, 1, CRITICAL, 0, "method", "method outside GET, HEAD, POST, PUT, DELETE, OPTIONS, PATCH"),
            rule(920240, 1, WARNING, 0, "%", "invalid URL encoding in a form body"),
            rule(920340, 1, NOTICE, 0, "content-length", "request body length without a Content-Type"),
            rule(920190, 1, WARNING, 0, "range", "Range header whose last byte is before its first"),
            rule(920350, 1, WARNING, 0, "host", "Host header is a numeric IP address"),
            rule(920260, 1, WARNING, 0, "%uff", "full-width Unicode (%uFFxx) in the request target"),
            rule(921150, 1, CRITICAL, 0, "\n", "CR or LF in a query argument name (checked over the decoded name)"),
            rule(920530, 1, CRITICAL, 0, "charset", "two charsets in the Content-Type"),
            rule(920600, 1, CRITICAL, 0, "charset", "Accept header outside the media-range grammar, or a charset not allowed"),
            rule(921422, 2, CRITICAL, 0, "/", "Content-Type header injection: a second type"),
            // Bodies, checked by BodyScanner's parsers (parts 0). 920120 is CRS's; the x9xx ids are ours: CRS 3.3
            // leaves malformed multipart to ModSecurity's MULTIPART_STRICT_ERROR and has no XXE rule.
            rule(920120, 1, CRITICAL, 0, "['\\\";=]", "multipart field or file name with a quote, = or ; (parser bypass)"),
            rule(920900, 1, CRITICAL, 0, "multipart", "malformed multipart/form-data body or boundary"),
            rule(921900, 1, CRITICAL, 0, "system|public", "XML document type naming an external entity or DTD (XXE)"),
            rule(921901, 1, CRITICAL, 0, "<!entity", "XML entity declaration (entity expansion)"),
            // 944: Java.
            rule(944100, 1, CRITICAL, SQL | ANY, words("java.lang.runtime", "java.lang.processbuilder", "java.lang.system", "java.lang.reflect",
                    "java.lang.class", "runtime.getruntime", "processbuilder(", "javax.script", "java.beans.",
                    "org.apache.commons.collections", "#_memberaccess", "ognlcontext", "@ognl"), "Java class or OGNL"),
            rule(944150, 1, CRITICAL, ALL | ANY, "\\$\\{(" + alternatives("jndi", "ctx", "env", "sys", "java", "lower", "upper", "date", "main",
                    "base64", "k8s", "docker", "spring", "bundle", "log4j", "sd", "web", "event", "marker", "map") + ")[:$]"
                    + "|\\$\\{[^}]*\\$\\{", "\\$\\{", "Log4Shell lookup"),
            rule(944120, 1, CRITICAL, SQL | ANY, "(" + JAVA_GADGETS + ").*(runtime|processbuilder)|(runtime|processbuilder).*(" + JAVA_GADGETS + ")",
                    "(" + JAVA_GADGETS + "|runtime|processbuilder)", "Java deserialization gadget with process execution"),
            // CRS 944110 (CVE-2017-9805): runtime or processbuilder with unmarshaller, base64data or "java." in the same value.
            rule(944110, 1, CRITICAL, SQL | ANY, "(runtime|processbuilder).*(unmarshaller|base64data|java\\.)|(unmarshaller|base64data|java\\.)"
                    + ".*(runtime|processbuilder)", "(runtime|processbuilder|unmarshaller|base64data|java\\.)", "Java process spawn"),
            rule(944130, 1, CRITICAL, SQL | ANY, "class\\.(module\\.)?classloader|\\.getclass ?\\( ?\\)|" + alternatives(JAVA_CLASSES),
                    "Suspicious Java class or Spring4Shell class loader"),
            // CRS 944240 and 944250 (paranoia 2): a gadget name alone, or "java" and later runtime or processbuilder.
            rule(944240, 2, CRITICAL, SQL | ANY, "(" + JAVA_GADGETS + ")", "Java deserialization gadget name"),
            rule(944250, 2, CRITICAL, SQL | ANY, "java" + NW + ".*(runtime|processbuilder)", "java" + NW,
                    "Java and later runtime or processbuilder"),
            rule(944210, 1, CRITICAL, SQL | ANY, "ro0ab|kztaau|cs7qaf|aced0005|\u00ac\u00ed\u0000\u0005", "Java serialized object (its magic bytes, hex or base64 at any of the three offsets)"));

    /** Longs in a request's match set ({@link Inspection#matched}): room for 64 times as many rules. */
    static final int WORDS = 4;
    private static final Map<BitSet, Dfa> UNIONS = new HashMap<>();
    /** Rules per group pre-filter ({@link #groups}). */
    static final int GROUP = 8;

    static {
        if (RULES.size() > WORDS * Long.SIZE) {
            throw new IllegalStateException("a request's match set is " + WORDS + " longs: at most " + WORDS * Long.SIZE
                    + " rules, found " + RULES.size());
        }
    }

    private AttackRules() {
    }

    /** Every rule, in table order. */
    public static List<AttackRule> all() {
        return RULES;
    }

    /** The rule with this id, or null. */
    public static AttackRule byId(int id) {
        for (AttackRule r : RULES) {
            if (r.id() == id) {
                return r;
            }
        }
        return null;
    }

    /** True when some rule belongs to group {@code group} (942) . */
    public static boolean isGroup(int group) {
        for (AttackRule r : RULES) {
            if (r.group() == group) {
                return true;
            }
        }
        return false;
    }

    /** The rules that look at {@code part} at {@code paranoia} through the chain {@code cmdLine} names, in table order. */
    static AttackRule[] applying(int part, int paranoia, boolean cmdLine) {
        List<AttackRule> out = new ArrayList<>();
        for (AttackRule r : RULES) {
            if (r.paranoia() <= paranoia && (r.parts() & part) != 0 && r.isCmdLine() == cmdLine) {
                out.add(r);
            }
        }
        return out.toArray(new AttackRule[0]);
    }

    /**
     * The union pre-filter for {@code part}: the {@link AttackRule#prefilter} (a gap rule joins with its
     * gap-free trigger) of every rule that applies to some part of its group, built once per set of
     * rules for the process. The query shares its union with cookies, the named headers theirs with the
     * User-Agent ({@link #group}): two builds instead of four, and a value that matches only the other
     * part's rule walks the group automata and matches nothing. One union for all four halved the
     * build again but doubled the cost of a browser request (2.1 to 4.1 µs in-process): the
     * {@code (} of every browser User-Agent is the trigger of 933210, a query and cookie rule. Compile time:
     * the product of the rules' own automata ({@link Dfa#union}), a fraction of a second.
     */
    static Dfa union(int part, int paranoia, boolean cmdLine) {
        AttackRule[] rules = inspected(part, paranoia, cmdLine);
        return unionOf(rules, 0, rules.length, cmdLine);
    }

    /**
     * The rules walked for {@code part}: every rule of its group ({@link #union}), in table order; a rule
     * that does not apply to the part itself is skipped there ({@link AttackRule#parts}).
     */
    static AttackRule[] inspected(int part, int paranoia, boolean cmdLine) {
        return applying(group(part), paranoia, cmdLine);
    }

    /** The parts that share {@code part}'s union: query with cookies, named headers with the User-Agent. */
    private static int group(int part) {
        if ((part & (Part.QUERY | Part.COOKIE)) != 0) {
            return Part.QUERY | Part.COOKIE;
        }
        return (part & (Part.HEADER | Part.USER_AGENT)) != 0 ? Part.HEADER | Part.USER_AGENT : part;
    }

    /**
     * One pre-filter per {@link #GROUP} consecutive rules of {@link #inspected}: a value the part's
     * union matched walks the group unions, and only the rules of a group that matched too, so an
     * adversarial value that keeps the union matching costs a few walks instead of one per rule.
     */
    static Dfa[] groups(int part, int paranoia, boolean cmdLine) {
        AttackRule[] rules = inspected(part, paranoia, cmdLine);
        Dfa[] out = new Dfa[(rules.length + GROUP - 1) / GROUP];
        for (int g = 0; g < out.length; g++) {
            out[g] = unionOf(rules, g * GROUP, Math.min(rules.length, (g + 1) * GROUP), cmdLine);
        }
        return out;
    }

    /** The union of {@code rules[from, to)}'s pre-filters, built once per set of rules for the process. */
    private static synchronized Dfa unionOf(AttackRule[] rules, int from, int to, boolean cmdLine) {
        BitSet key = new BitSet();
        for (int i = from; i < to; i++) {
            key.set(rules[i].index());
        }
        key.set(RULES.size() + (cmdLine ? 1 : 0));
        Dfa dfa = UNIONS.get(key);
        if (dfa == null) {
            Dfa[] parts = new Dfa[to - from];
            for (int i = from; i < to; i++) {
                parts[i - from] = rules[i].prefilterDfa();
            }
            dfa = Dfa.union(parts);
            UNIONS.put(key, dfa);
        }
        return dfa;
    }

    private static AttackRule rule(int id, int paranoia, int score, int parts, String pattern, String message) {
        return new AttackRule(id, nextIndex++, paranoia, score, parts, pattern, message, false, null);
    }

    /** A rule with a gap, and the gap-free {@code trigger} every match of it contains. */
    private static AttackRule rule(int id, int paranoia, int score, int parts, String pattern, String trigger, String message) {
        return new AttackRule(id, nextIndex++, paranoia, score, parts, pattern, message, false, trigger);
    }

    /** A rule over the {@link Transform#cmdLine} form of a value (CRS's {@code t:cmdLine}). */
    private static AttackRule cmdRule(int id, int paranoia, int score, int parts, String pattern, String trigger, String message) {
        return new AttackRule(id, nextIndex++, paranoia, score, parts, pattern, message, true, trigger);
    }

    /**
     * A literal written with at least one space or newline between its characters ({@code ja vascript:}),
     * as one alternative per gap that must be there: the plain word is left to a stricter rule.
     */
    private static String obfuscated(String word) {
        StringBuilder b = new StringBuilder("(");
        for (int gap = 1; gap < word.length(); gap++) {
            b.append(gap == 1 ? "" : "|");
            for (int i = 0; i < word.length(); i++) {
                b.append(i == 0 ? "" : i == gap ? "[ \n]" : "[ \n]?").append(word.charAt(i));
            }
        }
        return b.append(')').toString();
    }

    /** The lines of a list kept beside this class (comments and blank lines left out). */
    private static String[] resourceLines(String name) {
        try (InputStream in = AttackRules.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(String::strip)
                    .filter(l -> !l.isEmpty() && !l.startsWith("#")).toArray(String[]::new);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Literal alternatives, each escaped, as {@code (a|b|c)}. */
    private static String words(String... literals) {
        return "(" + alternatives(literals) + ")";
    }

    private static String alternatives(String... literals) {
        StringBuilder b = new StringBuilder();
        for (String w : literals) {
            if (b.length() > 0) {
                b.append('|');
            }
            for (int i = 0; i < w.length(); i++) {
                char c = w.charAt(i);
                if (!Character.isLetterOrDigit(c)) {
                    b.append('\\');
                }
                b.append(c);
            }
        }
        return b.toString();
    }
}
