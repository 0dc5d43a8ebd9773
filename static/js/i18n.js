// The scripts' own words in the page's language (issue #37): the catalog /i18n/<lang>.js sets
// window.TACMAP_I18N before this file; t("Text {name}", {name: x}) and tn("one {n}", "{n} many", n) look a
// message up (extracted by scripts/i18n with babel's javascript extractor) and fill its {placeholders}.
(function () {
  "use strict";
  const cat = window.TACMAP_I18N || { lang: "en", texts: {}, plurals: {}, decimal: "." };
  function fill(text, params) {
    if (!params) return text;
    return text.replace(/\{(\w+)\}/g, (m, key) => (key in params ? String(params[key]) : m));
  }
  // the plural form index of n: the catalog's forms are for 1, 2 and 5 (enough for en, de, fr, es)
  function form(n) {
    const lang = cat.lang.slice(0, 2);
    if (lang === "fr") return n === 0 || n === 1 ? 0 : 1;
    return n === 1 ? 0 : 1;
  }
  function t(text, params) {
    return fill(cat.texts[text] || text, params);
  }
  function tn(one, many, n, params) {
    const forms = cat.plurals[one];
    const chosen = forms ? forms[form(n) === 0 ? 0 : 2] : (n === 1 ? one : many);
    return fill(chosen, Object.assign({ n: num(n) }, params || {}));
  }
  // a number as text in the page's language (the decimal sign)
  function num(n) {
    return String(n).replace(".", cat.decimal);
  }
  window.t = t;
  window.tn = tn;
  window.tnum = num;
  window.tacmapLang = cat.lang;
})();
