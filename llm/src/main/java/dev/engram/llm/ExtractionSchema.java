package dev.engram.llm;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.engram.avro.FactCategory;
import dev.engram.port.TenantPolicy;

/** The JSON schema the LLM extractor asks its answers to follow (OpenAI {@code response_format} json_schema). */
final class ExtractionSchema {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ExtractionSchema() {
    }

    /**
     * @param policy the tenant's categories and the built-in ones it turned off ({@link TenantPolicy#none} for none)
     * @return the JSON schema of an extraction answer: its {@code category} enum is the built-in categories the tenant
     *     keeps, then its own
     */
    static ObjectNode of(final TenantPolicy policy) {
        final ObjectNode root = JSON.createObjectNode().put("type", "object");
        final ObjectNode props = root.putObject("properties");
        final ObjectNode item = props.putObject("memories").put("type", "array").putObject("items").put("type", "object");
        final ObjectNode fields = item.putObject("properties");
        fields.putObject("type").putArray("enum").add("SEMANTIC").add("PROCEDURAL").add("EPISODIC");
        final ArrayNode categories = fields.putObject("category").putArray("enum");
        for (final FactCategory c : FactCategory.values()) {
            if (!policy.disabled().contains(c)) {
                categories.add(c.name());
            }
        }
        policy.categories().forEach(c -> categories.add(c.name()));
        categories.addNull();
        fields.putObject("key").putArray("type").add("string").add("null");
        fields.putObject("value").putArray("type").add("string").add("null");
        fields.putObject("displayName").putArray("type").add("string").add("null");
        fields.putObject("content").put("type", "string");
        fields.putObject("importance").put("type", "number").put("minimum", 0).put("maximum", 1);
        fields.putObject("confidence").put("type", "number").put("minimum", 0).put("maximum", 1);
        fields.putObject("source").putArray("enum").add("EXPLICIT").add("INFERRED");
        fields.putObject("negated").put("type", "boolean");
        fields.putObject("evidence").put("type", "array").putObject("items").put("type", "integer");
        item.putArray("required").add("type").add("content").add("importance").add("confidence").add("source")
            .add("evidence");
        final ObjectNode summary = props.putObject("summary");
        summary.putArray("type").add("object").add("null");
        final ObjectNode summaryFields = summary.putObject("properties");
        summaryFields.putObject("summary").put("type", "string");
        summaryFields.putObject("topics").put("type", "array").putObject("items").put("type", "string");
        summaryFields.putObject("decisions").put("type", "array").putObject("items").put("type", "string");
        root.putArray("required").add("memories");
        return root;
    }
}
