package wptext

import (
	"regexp"
	"strings"
)

var (
	contentTagRe     = regexp.MustCompile(`<(img|iframe)[\t\n\v\f\r ][^>]+>`)
	imgDecodingRe    = regexp.MustCompile(` decoding=["']([A-Za-z]+)["']`)
	imgLoadingRe     = regexp.MustCompile(` loading=["']([A-Za-z]+)["']`)
	imgFetchprioRe   = regexp.MustCompile(` fetchpriority=["']([A-Za-z]+)["']`)
	imgWidthRe       = regexp.MustCompile(` width=["']([0-9]+)["']`)
	imgHeightRe      = regexp.MustCompile(` height=["']([0-9]+)["']`)
	imgSizesAttrRe   = regexp.MustCompile(`(?i) sizes=(["'])`)
	imgSizesHasAuto  = regexp.MustCompile(`(?i) sizes=["']\s*auto\s*,`)
	imgLoadingLazyRe = regexp.MustCompile(`(?i) loading=["']?lazy`)
)

// filterContentTags mirrors wp_filter_content_tags() for a site model
// without attachments: srcset/sizes and dimensions (which need attachment
// metadata) are not added, but the loading-optimisation attributes are:
// decoding="async" on images with a src, loading="lazy" on images and
// iframes with explicit dimensions (REST requests are outside the loop, so
// WordPress never treats them as in-viewport).
func filterContentTags(content string) string {
	if !strings.Contains(content, "<img") && !strings.Contains(content, "<iframe") {
		return content
	}
	matches := contentTagRe.FindAllStringSubmatch(content, -1)
	done := map[string]bool{}
	for _, m := range matches {
		tag := m[0]
		if done[tag] {
			continue
		}
		done[tag] = true
		var filtered string
		if m[1] == "img" {
			filtered = imgAddLoadingOptimization(tag)
			filtered = imgAddAutoSizes(filtered)
		} else {
			filtered = tag
			if !strings.Contains(filtered, " loading=") && strings.Contains(filtered, ` src="`) &&
				strings.Contains(filtered, ` width="`) && strings.Contains(filtered, ` height="`) {
				filtered = strings.Replace(filtered, "<iframe", `<iframe loading="lazy"`, -1)
			}
		}
		if filtered != tag {
			content = strings.ReplaceAll(content, tag, filtered)
		}
	}
	return content
}

// imgAddLoadingOptimization mirrors wp_img_tag_add_loading_optimization_attrs()
// with wp_get_loading_optimization_attributes() in a REST request.
func imgAddLoadingOptimization(img string) string {
	decoding := imgDecodingRe.FindStringSubmatch(img)
	loading := imgLoadingRe.FindStringSubmatch(img)
	fetch := imgFetchprioRe.FindStringSubmatch(img)
	width := imgWidthRe.FindStringSubmatch(img)
	height := imgHeightRe.FindStringSubmatch(img)
	if !strings.Contains(img, ` src="`) {
		return img
	}
	if decoding == nil {
		img = strings.Replace(img, "<img", `<img decoding="async"`, -1)
	}
	if !strings.Contains(img, ` width="`) || !strings.Contains(img, ` height="`) {
		return img
	}
	if width == nil || height == nil || phpEmpty(width[1]) || phpEmpty(height[1]) {
		return img
	}
	inViewport := false
	if loading != nil {
		inViewport = loading[1] != "lazy"
	}
	if fetch != nil && fetch[1] == "high" && (loading == nil || loading[1] != "lazy") {
		inViewport = true
	}
	if loading == nil && !inViewport {
		img = strings.Replace(img, "<img", `<img loading="lazy"`, -1)
	}
	return img
}

// imgAddAutoSizes mirrors wp_img_tag_add_auto_sizes(): lazy images with a
// sizes attribute get "auto, " prepended.
func imgAddAutoSizes(img string) string {
	if !imgLoadingLazyRe.MatchString(img) {
		return img
	}
	loc := imgSizesAttrRe.FindStringSubmatchIndex(img)
	if loc == nil || imgSizesHasAuto.MatchString(img) {
		return img
	}
	return img[:loc[1]] + "auto, " + img[loc[1]:]
}
