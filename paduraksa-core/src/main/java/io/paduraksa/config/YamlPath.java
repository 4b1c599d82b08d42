package io.paduraksa.config;

/**
 * Renders and splits YAML paths as error messages print them: {@code hosts[2].routes[0].forward}.
 * Keys that would be ambiguous in that form (a dot, a bracket, a quote, white space, empty) are
 * written as {@code clusters["api.v2"]}. The empty path is the document itself.
 */
final class YamlPath {
    static final String ROOT = "";

    private YamlPath() {
    }

    static String key(String parent, String key) {
        if (isPlain(key)) {
            return parent.isEmpty() ? key : parent + '.' + key;
        }
        StringBuilder sb = new StringBuilder(parent.length() + key.length() + 6).append(parent).append("[\"");
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\');
            }
            sb.append(c);
        }
        return sb.append("\"]").toString();
    }

    static String index(String parent, int index) {
        return parent + '[' + index + ']';
    }

    /** The path one step up ({@code hosts[2].routes} for {@code hosts[2].routes[0]}); the root for the root. */
    static String parent(String path) {
        int lastStart = 0;
        int i = 0;
        int n = path.length();
        while (i < n) {
            lastStart = i;
            char c = path.charAt(i);
            if (c == '.') {
                i = skipBare(path, i + 1);
            } else if (c == '[') {
                i = skipBracket(path, i + 1);
            } else {
                i = skipBare(path, i);
            }
        }
        return path.substring(0, lastStart);
    }

    private static int skipBare(String path, int i) {
        while (i < path.length() && path.charAt(i) != '.' && path.charAt(i) != '[') {
            i++;
        }
        return i;
    }

    private static int skipBracket(String path, int i) {
        if (i < path.length() && path.charAt(i) == '"') {
            i++;
            while (i < path.length() && path.charAt(i) != '"') {
                i += path.charAt(i) == '\\' ? 2 : 1;
            }
            i++;
        }
        while (i < path.length() && path.charAt(i) != ']') {
            i++;
        }
        return Math.min(i + 1, path.length());
    }

    private static boolean isPlain(String key) {
        if (key.isEmpty()) {
            return false;
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c == '.' || c == '[' || c == ']' || c == '"' || c == '\\' || Character.isWhitespace(c)) {
                return false;
            }
        }
        return true;
    }
}
